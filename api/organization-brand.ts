import type { EntityManager } from '@mikro-orm/postgresql';
import { mediaFileIdsByProduct } from '../db/catalog/product-medias.ts';
import { filesByIds, findFile } from '../db/file/records.ts';
import { findOrganization } from '../db/organization/organizations.ts';
import { brandOf } from '../domain/branding.ts';
import { isMediaType } from '../domain/file-types.ts';
import { isUuid } from '../use-cases/schemas/common.ts';
import type { FileLinks } from './file-links.ts';

/** An organization's brand as a page or an e-mail shows it (decision 0091). */
export interface BrandView {
  name: string;
  /** `#rrggbb` and the text colour on it, or null for the pages' own. */
  color: string | null;
  ink: string | null;
  /** A URL of the logo's bytes (signed, for `seconds`), or null when it has none or it is gone. */
  logoUrl: string | null;
}

/** What a buyer's page shows of the seller: its brand, and the product's images (their URLs, in order). */
export interface Storefront {
  brand: BrandView;
  images: { url: string; name: string }[];
}

/**
 * The brand of `organization`, its logo's URL signed for `seconds`: a page's lifetime for a page, longer
 * for an e-mail. A logo file deleted since it was chosen, or no longer an image, is left out.
 */
export async function brandView(
  em: EntityManager,
  files: FileLinks,
  organization: { id: string; name: string; profileSettings?: Record<string, unknown> | null },
  seconds?: number,
): Promise<BrandView> {
  const brand = brandOf(organization.profileSettings);
  const file =
    brand.logoFileId && isUuid(brand.logoFileId) ? await findFile(em, organization.id, brand.logoFileId) : null;
  const logo = file && isMediaType(file.mimeType) ? await files.urlOf(file, seconds) : null;
  return { name: organization.name, color: brand.color, ink: brand.ink, logoUrl: logo?.url ?? null };
}

/** The seller's brand and the product's images, for a checkout's or a checkout link's page. */
export async function storefrontOf(
  em: EntityManager,
  files: FileLinks,
  organizationId: string,
  productId: string,
): Promise<Storefront> {
  const [organization, mediaIds] = await Promise.all([
    findOrganization(em, organizationId),
    mediaFileIdsByProduct(em, [productId]),
  ]);
  if (!organization) throw new Error(`Organization ${organizationId} not found`);
  const ids = mediaIds.get(productId) ?? [];
  const byId = new Map((await filesByIds(em, ids)).map((f) => [f.id, f]));
  const media = ids.map((id) => byId.get(id)).filter((f) => f !== undefined && isMediaType(f.mimeType));
  const [brand, urls] = await Promise.all([
    brandView(em, files, organization),
    Promise.all(media.map((f) => files.urlOf(f!))),
  ]);
  return { brand, images: urls.map((u, i) => ({ url: u.url, name: media[i]!.name })) };
}

/** The origins a page's images come from (ours on local disk, the bucket's on S3), for its CSP's img-src. */
export function imageOrigins(storefront: Storefront | null | undefined): string[] {
  if (!storefront) return [];
  const urls = [storefront.brand.logoUrl, ...storefront.images.map((i) => i.url)].filter((u) => u !== null);
  return [...new Set(urls.map((u) => new URL(u).origin))];
}

/** The brand of the organization `organizationId` (the portal's pages, which know only the id). */
export async function organizationBrand(
  em: EntityManager,
  files: FileLinks,
  organizationId: string,
): Promise<BrandView> {
  const organization = await findOrganization(em, organizationId);
  if (!organization) throw new Error(`Organization ${organizationId} not found`);
  return brandView(em, files, organization);
}

/**
 * A fresh URL of the logo of the organization `organizationId` (a uuid), signed for `seconds`; null
 * when it has none, its file is gone, or there is no such organization (the mails' logo route).
 */
export async function organizationLogoUrl(
  em: EntityManager,
  files: FileLinks,
  organizationId: string,
  seconds: number,
): Promise<string | null> {
  const organization = await findOrganization(em, organizationId);
  return organization ? (await brandView(em, files, organization, seconds)).logoUrl : null;
}
