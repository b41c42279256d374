import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What a sale's record (db/sale/records.ts) names of its payment. */

/** The gateway's id and the charged amount of each of these transactions, by id. */
export async function salePayments(
  em: EntityManager,
  ids: readonly string[],
): Promise<Map<string, { gatewayTransactionId: string; amount: number }>> {
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('transactions')
    .select(['id', 'gatewayTransactionId', 'amount'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map(({ id, ...payment }) => [id, payment]));
}
