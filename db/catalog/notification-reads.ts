import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the event object's notifications read of the catalog (activities/notifications.ts). */

export async function productNames(em: EntityManager, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await kyselyOf(em)
    .selectFrom('products')
    .select(['id', 'name'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((p) => [p.id, p.name]));
}

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
