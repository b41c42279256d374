import type { EntityManager } from '@mikro-orm/postgresql';
import { findFile } from '../db/file/records.ts';
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
