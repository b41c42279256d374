import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** The catalog's `product_medias`: which files a product shows, in order. The files are the file object's. */

/** Replaces the product's media with `fileIds`, in order. */
export async function setProductMedias(
  tx: EntityManager,
  product: { id: string; organizationId: string },
  fileIds: readonly string[],
): Promise<void> {
  const db = kyselyOf(tx);
  await db.deleteFrom('product_medias').where('productId', '=', product.id).execute();
  if (fileIds.length === 0) return;
  await db
    .insertInto('product_medias')
    .values(
      fileIds.map((fileId, position) => ({
        productId: product.id,
        fileId,
        organizationId: product.organizationId,
        position,
      })),
    )
    .execute();
}

/** Each product's media files' ids, in order (a product with none is absent from the map). */
export async function mediaFileIdsByProduct(
  em: EntityManager,
  productIds: readonly string[],
): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>();
  if (productIds.length === 0) return map;
  const rows = await kyselyOf(em)
    .selectFrom('product_medias')
    .select(['productId', 'fileId'])
    .where('productId', 'in', [...productIds])
    .orderBy('productId')
    .orderBy('position')
    .execute();
  for (const row of rows) map.set(row.productId, [...(map.get(row.productId) ?? []), row.fileId]);
  return map;
}

/** The products that show the file, by id. */
export async function productsShowingFile(tx: EntityManager, fileId: string): Promise<string[]> {
  const rows = await kyselyOf(tx)
    .selectFrom('product_medias')
    .select('productId')
    .where('fileId', '=', fileId)
    .orderBy('productId')
    .execute();
  return rows.map((row) => row.productId);
}
