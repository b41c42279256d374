import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the metrics report reads of the catalog: the periods of the prices subscriptions are billed at. */

export interface PriceInterval {
  id: string;
  interval: 'day' | 'week' | 'month' | 'year' | null;
  intervalCount: number | null;
}

/**
 * The organization's prices that have a period (deleted ones included: a subscription keeps its
 * price); a price missing from the list has neither interval nor count (a one-time price).
 */
export async function priceIntervals(em: EntityManager, organizationId: string): Promise<PriceInterval[]> {
  const rows = await kyselyOf(em)
    .selectFrom('prices')
    .select(['id', 'interval', 'intervalCount'])
    .where('organizationId', '=', organizationId)
    .where((eb) => eb.or([eb('interval', 'is not', null), eb('intervalCount', 'is not', null)]))
    .execute();
  return rows.map((row) => ({ id: row.id, interval: row.interval ?? null, intervalCount: row.intervalCount ?? null }));
}
