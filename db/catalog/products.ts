import { LockMode, type InferEntity, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Price, Product } from '../entities/catalog.ts';
import { kyselyOf, prepared } from '../kysely.ts';

/** The catalog's products and prices (`products`, `prices`). Prices are immutable but for `active` and their plan. */

export type ProductRow = InferEntity<typeof Product>;
export type PriceRow = InferEntity<typeof Price>;
export type { ListedMedia, ListedPrice } from '../entities/catalog.ts';

/** A new product, flushed with the caller's transaction. */
export function createProduct(tx: EntityManager, product: RequiredEntityData<ProductRow>): ProductRow {
  return tx.create(Product, product);
}

/** A new price, flushed with the caller's transaction (its product row must exist first). */
export function createPriceRow(tx: EntityManager, price: RequiredEntityData<PriceRow>): PriceRow {
  return tx.create(Price, price);
}

/** The organization's product, `lock`ed for an update when asked. */
export async function findProduct(
  em: EntityManager,
  organizationId: string,
  id: string,
  lock = false,
): Promise<ProductRow | null> {
  return em.findOne(Product, { id, organizationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
}

/** A product that is not archived, of any organization, locked (the admin's create-price). */
export async function lockUnarchivedProduct(tx: EntityManager, id: string): Promise<ProductRow | null> {
  return tx.findOne(Product, { id, isArchived: false }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** One page of the products `where` selects, and how many there are. */
export async function productPage(
  em: EntityManager,
  where: { organizationId: string; isArchived?: boolean; name?: { $ilike: string } },
  page: { orderBy: Record<string, 'asc' | 'desc'>; limit: number; offset: number },
): Promise<[ProductRow[], number]> {
  return em.findAndCount(Product, where, { orderBy: page.orderBy, limit: page.limit, offset: page.offset });
}

/** Every price of the products, archived ones included, oldest first. */
export async function pricesOfProducts(em: EntityManager, productIds: readonly string[]): Promise<PriceRow[]> {
  if (productIds.length === 0) return [];
  return em.find(Price, { productId: { $in: [...productIds] } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/**
 * The organization's product with its prices and media, as GET /products/<id> shows them: the API's
 * hottest read, one row of one table (the lists are kept on the product by triggers), sent as a
 * prepared statement (db/kysely.ts `prepared`).
 */
export const productWithLists = prepared('product_with_lists', Product, (db, id: string, organizationId: string) =>
  db
    .selectFrom('products')
    .select([
      'id',
      'organizationId',
      'name',
      'description',
      'metadata',
      'isArchived',
      'isTaxApplicable',
      'defaultPriceId',
      'createdAt',
      'modifiedAt',
      'priceList',
      'mediaList',
    ])
    .where('id', '=', id)
    .where('organizationId', '=', organizationId),
);

/** Which of these ids are products of the organization (archived ones included). */
export async function ownProductIds(
  em: EntityManager,
  organizationId: string,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await kyselyOf(em)
    .selectFrom('products')
    .select('id')
    .where('organizationId', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The organization's products among these ids, each with whether it is archived and its default
 * price's id when that price is active (null otherwise): what a checkout link needs to sell it.
 */
export async function productsForSale(em: EntityManager, organizationId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return kyselyOf(em)
    .selectFrom('products as p')
    .leftJoin('prices as pr', (join) =>
      join.onRef('pr.id', '=', 'p.defaultPriceId').on('pr.active', '=', true).on('pr.deletedAt', 'is', null),
    )
    .select(['p.id', 'p.isArchived', 'pr.id as activeDefaultPriceId'])
    .where('p.organizationId', '=', organizationId)
    .where('p.id', 'in', [...ids])
    .execute();
}

/** A price by id, archived or not; one that does not exist is MikroORM's NotFoundError. */
export async function priceOrFail(em: EntityManager, id: string): Promise<PriceRow> {
  return em.findOneOrFail(Price, { id });
}

export async function findPriceById(em: EntityManager, id: string): Promise<PriceRow | null> {
  return em.findOne(Price, { id });
}

/** A product by id, of any organization; one that does not exist is MikroORM's NotFoundError. */
export async function productOrFail(em: EntityManager, id: string): Promise<ProductRow> {
  return em.findOneOrFail(Product, { id });
}

/** Stores the price's gateway recurrence plan, only while it has none (a concurrent run that stored first keeps its own). */
export async function setRecurrencePlanIfEmpty(em: EntityManager, priceId: string, planId: string): Promise<void> {
  await kyselyOf(em)
    .updateTable('prices')
    .set({ gatewayRecurrencePlanId: planId })
    .where('id', '=', priceId)
    .where('gatewayRecurrencePlanId', 'is', null)
    .execute();
}
