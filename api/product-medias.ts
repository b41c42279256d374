import type { EntityManager } from '@mikro-orm/postgresql';
import { mediaFileIdsByProduct, setProductMedias as writeProductMedias } from '../db/catalog/product-medias.ts';
import { filesByIds, holdFiles } from '../db/file/records.ts';
import { isMediaType } from '../domain/file-types.ts';
import { unprocessable } from '../use-cases/errors.ts';
import { presentMediaFile, type MediaFileRecord } from './schemas/files.ts';

/**
 * A product's media: image files of its own organization, shown in the order given. The product
 * routes call these inside their transaction, so a refused media list leaves the product unchanged.
 */

/**
 * The files `ids` names (repeats dropped), in that order. Each must be an image file of the
 * organization: another organization's file is as unknown as a missing one (422, never a 403 that
 * confirms it exists). The rows are held `for key share`, so none is deleted before the caller commits.
 */
export async function ownMediaFiles(
  tx: EntityManager,
  organizationId: string,
  ids: readonly string[],
  field = 'medias',
): Promise<MediaFileRecord[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const byId = new Map((await holdFiles(tx, organizationId, wanted)).map((file) => [file.id, file]));
  const missing = wanted.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    throw unprocessable(
      'invalid_media',
      'Media file not found',
      `${field}: no file ${missing.join(', ')} in this organization`,
    );
  }
  const notImages = wanted.filter((id) => !isMediaType(byId.get(id)!.mimeType));
  if (notImages.length > 0) {
    throw unprocessable(
      'invalid_media',
      'Product media must be images',
      `${field}: ${notImages.join(', ')} is not an image`,
    );
  }
  return wanted.map((id) => presentMediaFile(byId.get(id)!));
}

/** Replaces the product's media with `medias`, in order. */
export async function setProductMedias(
  tx: EntityManager,
  product: { id: string; organizationId: string },
  medias: readonly MediaFileRecord[],
): Promise<void> {
  await writeProductMedias(
    tx,
    product,
    medias.map((media) => media.id),
  );
}

/** Each product's media, in order (a product with none is absent from the map). */
export async function mediasByProduct(
  em: EntityManager,
  productIds: readonly string[],
): Promise<Map<string, MediaFileRecord[]>> {
  const fileIds = await mediaFileIdsByProduct(em, productIds);
  const files = new Map((await filesByIds(em, [...new Set([...fileIds.values()].flat())])).map((f) => [f.id, f]));
  return new Map(
    [...fileIds].map(([productId, ids]) => [productId, ids.map((id) => presentMediaFile(files.get(id)!))]),
  );
}

/** The products' media for one of them, or none. */
export const mediasOf = (map: Map<string, MediaFileRecord[]>, productId: string) => map.get(productId) ?? [];
