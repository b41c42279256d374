import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf, sql } from '../kysely.ts';

/**
 * The refunds of the payment `transactionId` on its sale (activities/subscription-extra-charges.ts):
 * never more than the sale's amount. The sale's id, when the payment has one.
 */
export async function writeSaleRefundTotals(
  em: EntityManager,
  transactionId: string,
  refunds: { refundedTotal: number; status: 'paid' | 'refunded' | 'partially_refunded' },
): Promise<string | null> {
  const row = await kyselyOf(em)
    .updateTable('sales')
    .set((eb) => ({
      status: refunds.status,
      refundedAmount: eb.fn<number>('least', ['amount', eb.val(refunds.refundedTotal)]),
      updatedAt: sql<Date>`now()`,
    }))
    .where('transactionId', '=', transactionId)
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}
