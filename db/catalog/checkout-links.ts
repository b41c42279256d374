import { LockMode, type FilterQuery, type InferEntity, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CheckoutLink } from '../entities/payments.ts';

/** The catalog's checkout links (`checkout_links`): products sold at their default prices from one URL. */

export type CheckoutLinkRow = InferEntity<typeof CheckoutLink>;

/** A new checkout link, flushed with the caller's transaction. */
export function createCheckoutLink(tx: EntityManager, link: RequiredEntityData<CheckoutLinkRow>): CheckoutLinkRow {
  return tx.create(CheckoutLink, link);
}

/** The organization's checkout link (archived included), `lock`ed for an update when asked. */
export async function findCheckoutLink(
  em: EntityManager,
  organizationId: string,
  id: string,
  lock = false,
): Promise<CheckoutLinkRow | null> {
  return em.findOne(CheckoutLink, { id, organizationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
}

/** One page of the checkout links `where` selects, and how many there are. */
export async function checkoutLinkPage(
  em: EntityManager,
  where: FilterQuery<CheckoutLinkRow>,
  page: { orderBy: Record<string, 'asc' | 'desc'>; limit: number; offset: number },
): Promise<[CheckoutLinkRow[], number]> {
  return em.findAndCount(CheckoutLink, where, { orderBy: page.orderBy, limit: page.limit, offset: page.offset });
}
