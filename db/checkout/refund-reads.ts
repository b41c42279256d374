import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the sale object's refunds read of the checkout object's transactions (GET /refunds, the refund's workflow). */

/** The currency of each of these transactions, by id (a refund is in its payment's currency). */
export async function transactionCurrencies(
  em: EntityManager,
  transactionIds: readonly string[],
): Promise<Map<string, string>> {
  const ids = [...new Set(transactionIds)];
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('transactions')
    .select(['id', 'currency'])
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((t) => [t.id, t.currency]));
}

/** The refunded payment's gateway transaction and what was refunded of it; a payment that does not exist throws. */
export async function refundedPayment(em: EntityManager, transactionId: string) {
  return kyselyOf(em)
    .selectFrom('transactions')
    .select(['id', 'gatewayTransactionId', 'refundedAmount'])
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
}

/**
 * Our payment of a gateway transaction, locked until the transaction ends, or null (none of ours): a
 * refund made at the gateway is recorded under this lock, the one our own refunds take.
 */
export async function lockPaymentOfGatewayTransaction(em: EntityManager, gatewayTransactionId: string) {
  const row = await kyselyOf(em)
    .selectFrom('transactions')
    .selectAll()
    .where('gatewayTransactionId', '=', gatewayTransactionId)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}
