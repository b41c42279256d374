import type { EntityManager } from '@mikro-orm/postgresql';
import type { PriceInterval } from '../catalog/metrics-reads.ts';
import { periodsOf, rangeOf, type MetricsFilters } from '../metric-periods.ts';
import { kyselyOf, sql } from '../kysely.ts';
import type { SubscriptionPeriodCounts } from '../../domain/metrics.ts';

/**
 * A subscription's monthly amount, rounded half up to the cent: a year is 12 months, 52 weeks or
 * 365 days (a weekly price of 1000 is 4333 a month). In integers, (2a·f + d) / 2d with a floor
 * division being a·f/d rounded half up (numeric arithmetic took most of the subscriptions' time).
 * `p` is the subscription's price period (priceIntervals), null for a price without one.
 */
const YEARLY_FACTOR = sql`case p.interval when 'day' then 365 when 'week' then 52 when 'month' then 12 else 1 end`;
const MONTHS = sql`(12 * coalesce(p.interval_count, 1))`;
const MONTHLY_AMOUNT = sql<string>`(2 * s.amount * ${YEARLY_FACTOR} + ${MONTHS}) / (2 * ${MONTHS})`;

/** The catalog's price periods as a table (id, interval, interval_count), one parameter per column. */
function priceTable(prices: readonly PriceInterval[]) {
  const ids = prices.map((p) => p.id);
  const intervals = prices.map((p) => p.interval);
  const counts = prices.map((p) => p.intervalCount);
  return sql<{ id: string; interval: string | null; interval_count: number | null }>`(
    select * from unnest(${ids}::uuid[], ${intervals}::text[], ${counts}::integer[]) as p(id, interval, interval_count))`;
}

/**
 * The organization's subscriptions counted per period (the periods of `bounds`, in order), read from
 * its first one: those alive when the range starts make its first active count and MRR. Each start,
 * end and end of trial is a row of its own (a union: a lateral VALUES per subscription took four
 * times as long), whose period width_bucket finds by binary search over the periods' starts; running
 * sums over the periods make the active count and MRR at each one's end. `prices` are the periods of
 * the organization's prices, read from the catalog (db/catalog/metrics-reads.ts). One row of arrays, as
 * salesPerPeriod's (db/sale/metrics.ts).
 */
export async function subscriptionsPerPeriod(
  em: EntityManager,
  f: MetricsFilters,
  bounds: readonly string[],
  prices: readonly PriceInterval[],
): Promise<SubscriptionPeriodCounts[]> {
  const { productId, customerId } = f;
  const range = rangeOf(bounds);
  const starts = bounds.slice(0, -1);
  const row = await kyselyOf(em)
    .with('in_range', (db) =>
      // Those that ended before the range are in none of its periods.
      db
        .selectFrom('subscriptions as s')
        .leftJoin(priceTable(prices).as('p'), 'p.id', 's.priceId')
        .select([
          's.createdAt as created_at',
          's.endedAt as ended_at',
          sql<Date>`greatest(s.created_at, s.trial_end)`.as('paying_from'),
          MONTHLY_AMOUNT.as('monthly'),
        ])
        .where('s.organizationId', '=', f.organizationId)
        .where('s.createdAt', '<', range.end)
        .where((eb) => eb.or([eb('s.endedAt', 'is', null), eb('s.endedAt', '>=', range.start)]))
        .where(sql<boolean>`s.currency in (${f.currency}, lower(${f.currency}))`)
        .$call((qb) => (productId === null ? qb : qb.where('s.productId', '=', productId)))
        .$call((qb) => (customerId === null ? qb : qb.where('s.customerId', '=', customerId))),
    )
    .with(
      'changes',
      () =>
        // Each subscription adds to the running counts: +1 active at its start, -1 at its end, its monthly
        // amount to MRR once out of trial and back at its end. Changes before the range (bucket 0) land in
        // the first period: they are what was alive when it started. Those after it are left out.
        sql<{
          n: number;
          new_subscriptions: string;
          churned_subscriptions: string;
          active_change: string;
          mrr_change: string;
        }>`(
        select greatest(width_bucket(c.at, ${starts}::timestamptz[]), 1) as n,
               sum(c.is_new) as new_subscriptions, sum(c.churned) as churned_subscriptions,
               sum(c.active) as active_change, sum(c.mrr) as mrr_change
        from (
          select created_at as at, (created_at >= ${range.start})::int as is_new, 0 as churned, 1 as active, 0::bigint as mrr
          from in_range
          union all
          select ended_at, 0, 1, -1, 0 from in_range where ended_at < ${range.end}
          union all
          select paying_from, 0, 0, 0, monthly from in_range
          where paying_from < ${range.end} and (ended_at is null or paying_from < ended_at)
          union all
          select ended_at, 0, 0, 0, -monthly from in_range where paying_from < ended_at and ended_at < ${range.end}
        ) as c
        group by 1)`,
    )
    .with('per_period', (db) =>
      db
        .selectFrom(periodsOf(bounds).as('p'))
        .leftJoin('changes as sc', 'sc.n', 'p.n')
        .select([
          'p.n',
          sql<string>`coalesce(sc.new_subscriptions, 0)`.as('new_subscriptions'),
          sql<string>`coalesce(sc.churned_subscriptions, 0)`.as('churned_subscriptions'),
          sql<string>`sum(coalesce(sc.active_change, 0)) over (order by p.n)`.as('active_subscriptions'),
          sql<string>`sum(coalesce(sc.mrr_change, 0)) over (order by p.n)`.as('mrr'),
        ]),
    )
    .selectFrom('per_period')
    .select([
      sql<string[]>`array_agg(new_subscriptions::bigint order by n)`.as('newSubscriptions'),
      sql<string[]>`array_agg(churned_subscriptions::bigint order by n)`.as('churnedSubscriptions'),
      sql<string[]>`array_agg(active_subscriptions::bigint order by n)`.as('activeSubscriptions'),
      sql<string[]>`array_agg(mrr::bigint order by n)`.as('mrr'),
    ])
    .executeTakeFirstOrThrow();
  return row.newSubscriptions.map((created, i) => ({
    newSubscriptions: Number(created),
    churnedSubscriptions: Number(row.churnedSubscriptions[i]),
    activeSubscriptions: Number(row.activeSubscriptions[i]),
    mrr: Number(row.mrr[i]),
  }));
}
