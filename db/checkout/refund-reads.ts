import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the refund's workflow reads of the payment it refunds (locked: transactions.ts `lockTransaction`). */

/** The refunded payment's gateway transaction and what was refunded of it; a payment that does not exist throws. */
export async function refundedPayment(em: EntityManager, transactionId: string) {
  return kyselyOf(em)
    .selectFrom('transactions')
    .select(['id', 'gatewayTransactionId', 'refundedAmount'])
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
}
