import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the customer portal's pages read of the catalog: the names and periods they show. */

/** Each of these products' name, by id. */
export async function productNames(em: EntityManager, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('products')
    .select(['id', 'name'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((p) => [p.id, p.name]));
}

/** Each of these prices' interval (null for a one-time price), by id. */
export async function priceIntervals(em: EntityManager, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('prices')
    .select(['id', 'interval'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((p) => [p.id, p.interval ?? null]));
}
