import { LockMode, type FilterQuery, type InferEntity, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Discount } from '../entities/payments.ts';
import { kyselyOf } from '../kysely.ts';

/** The catalog's discounts (`discounts`); a deleted one (soft delete) is found by none of these. */

export type DiscountRow = InferEntity<typeof Discount>;

/** A new discount, flushed with the caller's transaction. */
export function createDiscount(tx: EntityManager, discount: RequiredEntityData<DiscountRow>): DiscountRow {
  return tx.create(Discount, discount);
}

/** The organization's live discount, `lock`ed for an update when asked. */
export async function findDiscount(
  em: EntityManager,
  organizationId: string,
  id: string,
  lock = false,
): Promise<DiscountRow | null> {
  return em.findOne(
    Discount,
    { id, organizationId, deletedAt: null },
    lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
}

/** Whether the organization has this live discount. */
export async function isOwnDiscount(em: EntityManager, organizationId: string, id: string): Promise<boolean> {
  const row = await kyselyOf(em)
    .selectFrom('discounts')
    .select('id')
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** The live discount whose code matches `pattern` (an ILIKE pattern, its wildcards escaped by the caller). */
export async function discountByCodePattern(
  em: EntityManager,
  organizationId: string,
  pattern: string,
): Promise<DiscountRow | null> {
  return em.findOne(Discount, { organizationId, deletedAt: null, code: { $ilike: pattern } });
}

/** One page of the discounts `where` selects, and how many there are. */
export async function discountPage(
  em: EntityManager,
  where: FilterQuery<DiscountRow>,
  page: { orderBy: Record<string, 'asc' | 'desc'>; limit: number; offset: number },
): Promise<[DiscountRow[], number]> {
  return em.findAndCount(Discount, where, { orderBy: page.orderBy, limit: page.limit, offset: page.offset });
}
