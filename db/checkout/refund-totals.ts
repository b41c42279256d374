import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/**
 * A subscription payment's refunds as the gateway counts them, on our transaction
 * (activities/subscription-extra-charges.ts): the totals are written, so writing them again changes nothing.
 */
export async function writeTransactionRefundTotals(
  em: EntityManager,
  id: string,
  refunds: { refundedAmount: number; status: string },
): Promise<void> {
  await kyselyOf(em).updateTable('transactions').set(refunds).where('id', '=', id).execute();
}
