import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Checkout } from '../entities/payments.ts';

/** The checkout entity as the API's reads and its checkout creation hold it. */
export type CheckoutEntityRow = InferEntity<typeof Checkout>;

/** The organization's checkout, `lock`ed for an update when asked; null for any other. */
export async function findOwnCheckout(
  em: EntityManager,
  organizationId: string,
  id: string,
  lock = false,
): Promise<CheckoutEntityRow | null> {
  return em.findOne(Checkout, { id, organizationId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
}

/** The payable (open or confirmed) checkout that renews the subscription for `period`, if one is open. */
export async function payableRenewalCheckout(
  em: EntityManager,
  organizationId: string,
  subscriptionId: string,
  period: number,
): Promise<CheckoutEntityRow | null> {
  return em.findOne(Checkout, {
    organizationId,
    subscriptionId,
    renewalPeriod: period,
    status: { $in: ['open', 'confirmed'] },
  });
}
