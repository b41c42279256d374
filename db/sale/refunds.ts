import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import { kyselyOf } from '../kysely.ts';

/** The sale object's refunds. */

/**
 * What the payment's pending refunds hold back, in minor units: the one place it is summed. `except`
 * leaves out the refund being decided.
 */
export async function pendingRefundSum(em: EntityManager, transactionId: string, except?: string): Promise<number> {
  let query = kyselyOf(em)
    .selectFrom('refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>('amount'), eb.lit(0)).as('pending'))
    .where('transactionId', '=', transactionId)
    .where('status', '=', 'pending');
  if (except !== undefined) query = query.where('id', '<>', except);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.pending);
}

/** A refund asked for, pending until its workflow settles it: the row as written. */
export async function insertPendingRefund(
  em: EntityManager,
  refund: { organizationId: string; saleId: string; transactionId: string; amount: number; reason: string | null },
) {
  const now = new Date();
  return kyselyOf(em)
    .insertInto('refunds')
    .values({ id: uuidv7(), ...refund, status: 'pending', createdAt: now, updatedAt: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The refund, locked until the transaction ends (refund, payment, sale: the settling's lock order). */
export async function lockRefund(em: EntityManager, refundId: string) {
  return kyselyOf(em)
    .selectFrom('refunds')
    .selectAll()
    .where('id', '=', refundId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** A pending refund settled: succeeded, or failed with its reason. */
export async function settleRefundRow(
  em: EntityManager,
  refundId: string,
  settled: { status: 'succeeded' } | { status: 'failed'; reason: string },
  now: Date,
): Promise<void> {
  await kyselyOf(em)
    .updateTable('refunds')
    .set({ ...settled, updatedAt: now })
    .where('id', '=', refundId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * A refund made at the gateway (its panel, or ours of a payment no sale accounts for), recorded as it
 * already is: succeeded. Without a sale when the payment's checkout ended without one. The row as written.
 */
export async function insertGatewayRefund(
  em: EntityManager,
  refund: { organizationId: string; saleId: string | null; transactionId: string; amount: number; reason: string },
  now: Date,
) {
  return kyselyOf(em)
    .insertInto('refunds')
    .values({ id: uuidv7(), ...refund, status: 'succeeded', createdAt: now, updatedAt: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What the succeeded refund rows of a payment add up to, in minor units. */
export async function succeededRefundSum(em: EntityManager, transactionId: string): Promise<number> {
  const row = await kyselyOf(em)
    .selectFrom('refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>('amount'), eb.lit(0)).as('refunded'))
    .where('transactionId', '=', transactionId)
    .where('status', '=', 'succeeded')
    .executeTakeFirstOrThrow();
  return Number(row.refunded);
}
