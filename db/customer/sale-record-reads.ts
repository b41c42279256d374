import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What a sale's record (db/sale/records.ts) names of its customer. */

/** The e-mail and name of each of these customers (deleted or not), by id. */
export async function saleCustomers(
  em: EntityManager,
  ids: readonly string[],
): Promise<Map<string, { email: string; name: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('customers')
    .select(['id', 'email', 'name'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map(({ id, ...customer }) => [id, customer]));
}
