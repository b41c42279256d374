import type { EntityManager } from '@mikro-orm/postgresql';
import { fileFromRow } from '../db/files.ts';
import { sqlIn } from '../db/plain-sql.ts';
import { pgArray } from '../db/sql.ts';
import { isMediaType } from '../domain/file-types.ts';
import { unprocessable } from '../use-cases/errors.ts';
import { presentMediaFile, type MediaFileRecord } from './schemas/files.ts';

/**
 * A product's media: image files of its own organization, shown in the order given. The product
 * routes call these inside their transaction, so a refused media list leaves the product unchanged.
 */

const MEDIA_COLUMNS =
  'f.id, f.organization_id, f.name, f.mime_type, f.size, f.checksum_sha256, f.storage_key, f.created_at';

/**
 * The files `ids` names (repeats dropped), in that order. Each must be an image file of the
 * organization: another organization's file is as unknown as a missing one (422, never a 403 that
 * confirms it exists). The rows are held `for key share`, so none is deleted before the caller commits.
 */
export async function ownMediaFiles(
  tx: EntityManager,
  organizationId: string,
  ids: readonly string[],
): Promise<MediaFileRecord[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const rows = await sqlIn(tx)<Parameters<typeof fileFromRow>[0]>(
    `select ${MEDIA_COLUMNS} from files f where f.organization_id = ? and f.id = any(?::uuid[]) for key share`,
    [organizationId, pgArray(wanted)],
  );
  const byId = new Map(rows.map((row) => [row.id, fileFromRow(row)]));
  const missing = wanted.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    throw unprocessable(
      'invalid_media',
      'Media file not found',
      `medias: no file ${missing.join(', ')} in this organization`,
    );
  }
  const notImages = wanted.filter((id) => !isMediaType(byId.get(id)!.mimeType));
  if (notImages.length > 0) {
    throw unprocessable(
      'invalid_media',
      'Product media must be images',
      `medias: ${notImages.join(', ')} is not an image`,
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
  const sql = sqlIn(tx);
  await sql('delete from product_medias where product_id = ?', [product.id]);
  if (medias.length === 0) return;
  await sql(
    `insert into product_medias (product_id, file_id, organization_id, position) values ${medias.map(() => '(?, ?, ?, ?)').join(', ')}`,
    medias.flatMap((media, position) => [product.id, media.id, product.organizationId, position]),
  );
}

/** Each product's media, in order (a product with none is absent from the map). */
export async function mediasByProduct(
  em: EntityManager,
  productIds: readonly string[],
): Promise<Map<string, MediaFileRecord[]>> {
  const map = new Map<string, MediaFileRecord[]>();
  if (productIds.length === 0) return map;
  const rows = await sqlIn(em)<Parameters<typeof fileFromRow>[0] & { product_id: string }>(
    `select m.product_id, ${MEDIA_COLUMNS} from product_medias m join files f on f.id = m.file_id
     where m.product_id = any(?::uuid[]) order by m.product_id, m.position`,
    [pgArray([...productIds])],
  );
  for (const row of rows) {
    const list = map.get(row.product_id) ?? [];
    list.push(presentMediaFile(fileFromRow(row)));
    map.set(row.product_id, list);
  }
  return map;
}

/** The products' media for one of them, or none. */
export const mediasOf = (map: Map<string, MediaFileRecord[]>, productId: string) => map.get(productId) ?? [];
