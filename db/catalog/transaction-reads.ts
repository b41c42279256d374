import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What GET /transactions/<id> reads of the catalog: the product its checkout sold. */

/** The product `productId` as a transaction's checkout names it, or null. */
export async function checkoutProduct(
  em: EntityManager,
  productId: string,
): Promise<{ id: string; name: string; description: string | null } | null> {
  const product = await kyselyOf(em)
    .selectFrom('products')
    .select(['id', 'name', 'description'])
    .where('id', '=', productId)
    .executeTakeFirst();
  return product ? { ...product, description: product.description ?? null } : null;
}
