import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** The API's reads of one sale or refund, and the refund sweep's (api/routes/sales.ts, refunds.ts). */

/** The organization's sale `id`, or null. */
export async function ownSale(em: EntityManager, organizationId: string, id: string) {
  return (
    (await kyselyOf(em)
      .selectFrom('sales')
      .selectAll()
      .where('id', '=', id)
      .where('organizationId', '=', organizationId)
      .executeTakeFirst()) ?? null
  );
}

/** The organization's refund `id`, or null. */
export async function ownRefund(em: EntityManager, organizationId: string, id: string) {
  return (
    (await kyselyOf(em)
      .selectFrom('refunds')
      .selectAll()
      .where('id', '=', id)
      .where('organizationId', '=', organizationId)
      .executeTakeFirst()) ?? null
  );
}

/** The refund `id` (one that does not exist is an error: the caller has just written it). */
export async function refundOrFail(em: EntityManager, id: string) {
  return kyselyOf(em).selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * Up to `batch` refunds still pending that were created at `createdBefore` or earlier, oldest first
 * (then by id), from just after `after` on: a page of the refund sweep.
 */
export async function pendingRefundsBefore(
  em: EntityManager,
  createdBefore: Date,
  after: { createdAt: Date; id: string } | null,
  batch: number,
) {
  let query = kyselyOf(em)
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'pending')
    .where('createdAt', '<=', createdBefore);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('createdAt', '>', after.createdAt),
        eb.and([eb('createdAt', '=', after.createdAt), eb('id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('createdAt', 'asc').orderBy('id', 'asc').limit(batch).execute();
}

/** The sale of a paid checkout: its amount, instalments, method and the transaction that paid it. */
export async function paidSaleOfCheckout(em: EntityManager, checkoutId: string) {
  return (
    (await kyselyOf(em)
      .selectFrom('sales')
      .select(['amount', 'installments', 'paymentMethod', 'transactionId'])
      .where('checkoutId', '=', checkoutId)
      .executeTakeFirst()) ?? null
  );
}
