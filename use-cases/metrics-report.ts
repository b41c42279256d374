import type { EntityManager } from '@mikro-orm/postgresql';
import { priceIntervals } from '../db/catalog/metrics-reads.ts';
import { checkoutsPerPeriod } from '../db/checkout/metrics.ts';
import { metricPeriods, withoutJit, type MetricPeriod, type MetricsQuery } from '../db/metric-periods.ts';
import { salesPerPeriod } from '../db/sale/metrics.ts';
import { subscriptionsPerPeriod } from '../db/subscription/metrics.ts';
import { combinedSums, type PeriodSums } from '../domain/metrics.ts';

export type PeriodRow = MetricPeriod & PeriodSums;

/**
 * One row per period of the range, in order, with its sums and counts: the periods' bounds are
 * computed once, then each owner sums its own rows between them (sales, checkouts, subscriptions,
 * whose MRR takes the catalog's price periods), one statement each on one connection, and domain
 * combines them. Throws UnknownTimeZone (db/metric-periods.ts) for a zone PostgreSQL does not know.
 */
export async function reportPeriods(em: EntityManager, q: MetricsQuery): Promise<PeriodRow[]> {
  return withoutJit(em, async (tx) => {
    const { periods, bounds } = await metricPeriods(tx, q);
    const sales = await salesPerPeriod(tx, q, bounds);
    const checkouts = await checkoutsPerPeriod(tx, q, bounds);
    const prices = await priceIntervals(tx, q.organizationId);
    const subscriptions = await subscriptionsPerPeriod(tx, q, bounds, prices);
    const sums = combinedSums(sales, checkouts, subscriptions);
    return periods.map((period, i) => ({ ...period, ...sums[i]! }));
  });
}
