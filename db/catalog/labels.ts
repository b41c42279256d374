import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/**
 * What other objects show of the catalog beside their own records (a sale's record, the customer
 * portal, the notifications): products' names and prices' periods, by id, archived or deleted ones
 * included (a sale or a subscription keeps its product and price).
 */

/** The name of each of these products, by id. */
export async function productNames(em: EntityManager, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('products')
    .select(['id', 'name'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((p) => [p.id, p.name]));
}

/** Each of these prices' period (both null for a one-time price), by id. */
export async function priceIntervals(
  em: EntityManager,
  ids: readonly string[],
): Promise<Map<string, { interval: string | null; intervalCount: number | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('prices')
    .select(['id', 'interval', 'intervalCount'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((p) => [p.id, { interval: p.interval ?? null, intervalCount: p.intervalCount ?? null }]));
}
