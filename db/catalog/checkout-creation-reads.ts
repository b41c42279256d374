import type { EntityManager } from '@mikro-orm/postgresql';
import { Discount, Price, Product } from '../entities/index.ts';
import type { DiscountRow } from './discounts.ts';
import type { PriceRow, ProductRow } from './products.ts';

/** What opening a checkout (use-cases/checkout-creation.ts, its renewals) reads of the catalog. */

/** A price by id, of any organization, unless deleted. */
export async function livePrice(em: EntityManager, id: string): Promise<PriceRow | null> {
  return em.findOne(Price, { id, deletedAt: null });
}

/** A product by id, of any organization (the caller decides whether it may sell it). */
export async function productById(em: EntityManager, id: string): Promise<ProductRow | null> {
  return em.findOne(Product, { id });
}

/** The organization's products among these ids (archived ones included). */
export async function organizationProducts(
  em: EntityManager,
  organizationId: string,
  ids: readonly string[],
): Promise<ProductRow[]> {
  return em.find(Product, { id: { $in: [...ids] }, organizationId });
}

/** A discount by id, of any organization, unless deleted (a renewal's held discount). */
export async function liveDiscount(em: EntityManager, id: string): Promise<DiscountRow | null> {
  return em.findOne(Discount, { id, deletedAt: null });
}
