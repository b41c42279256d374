import type { MetricInterval, PeriodSums } from '../domain/metrics.ts';
import type { PlainSql, Row } from './plain-sql.ts';

/** What one metrics report reads: an organization's records in a local date range, bucketed by interval. */
export interface MetricsQuery {
  organizationId: string;
  /** Local dates (YYYY-MM-DD) in `timeZone`, both included. */
  startDate: string;
  endDate: string;
  interval: MetricInterval;
  /** An IANA name PostgreSQL's zone database knows (else UnknownTimeZone). */
  timeZone: string;
  /** Upper case; sales, subscriptions and checkouts of other currencies are left out. */
  currency: string;
  productId: string | null;
  customerId: string | null;
}

export interface PeriodRow extends PeriodSums {
  /** The period's first and last local dates (the range's ends cut the first and last periods). */
  start_date: string;
  end_date: string;
  /** The instants of its local midnights (ISO 8601, UTC): start included, end excluded. */
  start_at: string;
  end_at: string;
}

/** PostgreSQL does not know the zone (its database and ICU's can differ by a release). */
export class UnknownTimeZone extends Error {}

/*
 * Parameters: $1 organization, $2 start date, $3 end date, $4 interval (a date_trunc field),
 * $5 time zone, $6 currency (upper case), $7 product id or null, $8 customer id or null.
 *
 * The periods are local dates (generate_series over them), and each one's bounds are the instants
 * of its local midnights. Sales and checkouts are summed per period by a range scan of
 * (organization_id, created_at) between those instants: no row's time is converted to the local
 * zone, nothing is sorted or hashed, and the work follows the rows in the range. Subscriptions are
 * read from the organization's first one (those alive when the range starts make its first active
 * count and MRR); each start, end and end of trial is a row of its own (a union: a lateral VALUES per
 * subscription took four times as long), whose period width_bucket finds by binary search over the
 * periods' starts. Currencies are stored upper case on sales and checkouts, lower case on
 * subscriptions (the price's).
 */
const RANGE_START = `($2::date::timestamp at time zone $5)`;
const RANGE_END = `(($3::date + 1)::timestamp at time zone $5)`;
const CURRENCY = `in ($6, lower($6))`;
const FILTERS = (t: string) =>
  `($7::uuid is null or ${t}.product_id = $7::uuid) and ($8::uuid is null or ${t}.customer_id = $8::uuid)`;

/**
 * A subscription's monthly amount, rounded half up to the cent: a year is 12 months, 52 weeks or
 * 365 days (a weekly price of 1000 is 4333 a month). In integers, (2a·f + d) / 2d with a floor
 * division being a·f/d rounded half up (numeric arithmetic took most of the subscriptions' time).
 */
const YEARLY_FACTOR = `case p.interval when 'day' then 365 when 'week' then 52 when 'month' then 12 else 1 end`;
const MONTHS = `(12 * coalesce(p.interval_count, 1))`;
const MONTHLY_AMOUNT = `(2 * s.amount * ${YEARLY_FACTOR} + ${MONTHS}) / (2 * ${MONTHS})`;

/** As toISOString writes it; JavaScript's Date cannot read PostgreSQL's text of 10000-01-01 (the day after 9999-12-31). */
const ISO_8601 = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

const STATEMENT = `
with periods as (
  select n, period_start, period_end,
         period_start::timestamp at time zone $5 as start_at,
         (period_end + 1)::timestamp at time zone $5 as end_at
  from (
    select row_number() over (order by d) as n,
           greatest(d::date, $2::date) as period_start,
           least((d + ('1 ' || $4)::interval)::date - 1, $3::date) as period_end
    from generate_series(date_trunc($4, $2::date::timestamp), $3::date::timestamp, ('1 ' || $4)::interval) as d
  ) local_dates
),
subscriptions_in_range as (
  -- Those that ended before the range are in none of its periods.
  select s.created_at, s.ended_at, greatest(s.created_at, s.trial_end) as paying_from, ${MONTHLY_AMOUNT} as monthly
  from subscriptions s
  join prices p on p.id = s.price_id
  where s.organization_id = $1 and s.created_at < ${RANGE_END}
    and (s.ended_at is null or s.ended_at >= ${RANGE_START})
    and s.currency ${CURRENCY} and ${FILTERS('s')}
),
subscription_changes as (
  -- Each subscription adds to the running counts: +1 active at its start, -1 at its end, its monthly
  -- amount to MRR once out of trial and back at its end. Changes before the range (bucket 0) land in
  -- the first period: they are what was alive when it started. Those after it are left out.
  select greatest(width_bucket(c.at, b.starts), 1) as n,
         sum(c.is_new) as new_subscriptions,
         sum(c.churned) as churned_subscriptions,
         sum(c.active) as active_change,
         sum(c.mrr) as mrr_change
  from (
    select created_at as at, (created_at >= ${RANGE_START})::int as is_new, 0 as churned, 1 as active, 0::bigint as mrr
    from subscriptions_in_range
    union all
    select ended_at, 0, 1, -1, 0 from subscriptions_in_range where ended_at < ${RANGE_END}
    union all
    select paying_from, 0, 0, 0, monthly from subscriptions_in_range
    where paying_from < ${RANGE_END} and (ended_at is null or paying_from < ended_at)
    union all
    select ended_at, 0, 0, 0, -monthly from subscriptions_in_range where paying_from < ended_at and ended_at < ${RANGE_END}
  ) as c
  cross join (select array_agg(start_at order by n) as starts from periods) b
  group by 1
)
select p.period_start::text as start_date, p.period_end::text as end_date,
       to_char(p.start_at at time zone 'UTC', ${ISO_8601}) as start_at,
       to_char(p.end_at at time zone 'UTC', ${ISO_8601}) as end_at,
       coalesce(ss.revenue, 0) as revenue,
       coalesce(ss.refunds, 0) as refunds,
       ss.sales_count,
       ss.refunded_sales_count,
       coalesce(sc.new_subscriptions, 0) as new_subscriptions,
       coalesce(sc.churned_subscriptions, 0) as churned_subscriptions,
       sum(coalesce(sc.active_change, 0)) over running as active_subscriptions,
       sum(coalesce(sc.mrr_change, 0)) over running as mrr,
       cs.checkouts,
       cs.succeeded_checkouts
from periods p
cross join lateral (
  -- Refunds count with their sale, in its period: net revenue is what the sales of a period kept.
  select sum(s.amount) as revenue,
         sum(s.refunded_amount) as refunds,
         count(*) filter (where s.amount > 0) as sales_count,
         count(*) filter (where s.refunded_amount > 0) as refunded_sales_count
  from sales s
  where s.organization_id = $1 and s.created_at >= p.start_at and s.created_at < p.end_at
    and s.currency ${CURRENCY} and ${FILTERS('s')}
) ss
cross join lateral (
  -- Renewal checkouts are opened by us, not by a buyer: they are no part of the conversion.
  select count(*) as checkouts, count(*) filter (where c.status = 'succeeded') as succeeded_checkouts
  from checkouts c
  where c.organization_id = $1 and c.created_at >= p.start_at and c.created_at < p.end_at
    and c.renewal_period is null and c.currency ${CURRENCY} and ${FILTERS('c')}
) cs
left join subscription_changes sc on sc.n = p.n
window running as (order by p.n)
order by p.n`;

const COUNTS = [
  'revenue',
  'refunds',
  'sales_count',
  'refunded_sales_count',
  'new_subscriptions',
  'churned_subscriptions',
  'active_subscriptions',
  'mrr',
  'checkouts',
  'succeeded_checkouts',
] as const satisfies readonly (keyof PeriodSums)[];

/** The statement and its parameters. */
export function metricsStatement(q: MetricsQuery): { text: string; params: unknown[] } {
  return {
    text: STATEMENT,
    params: [q.organizationId, q.startDate, q.endDate, q.interval, q.timeZone, q.currency, q.productId, q.customerId],
  };
}

/**
 * Runs `text` (the statement, or its EXPLAIN) without JIT compilation: over a year of records the
 * planner's cost passes jit_above_cost, and compiling took about a second, where running takes tens
 * of milliseconds (bench/metrics.ts).
 */
async function withoutJit(plain: PlainSql, text: string, params: unknown[]): Promise<Row[]> {
  try {
    return await plain.transaction(async (sql) => {
      await sql('set local jit = off');
      return sql(text, params);
    });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === '22023' && /time zone/.test(e.message ?? '')) throw new UnknownTimeZone(e.message);
    throw err;
  }
}

/** One row per period of the range, in order, with its sums and counts (bigint sums come as strings). */
export async function periodSums(plain: PlainSql, q: MetricsQuery): Promise<PeriodRow[]> {
  const { text, params } = metricsStatement(q);
  const rows = await withoutJit(plain, text, params);
  return rows.map((row) => {
    const sums = Object.fromEntries(COUNTS.map((field) => [field, Number(row[field])])) as unknown as PeriodSums;
    return {
      start_date: row.start_date as string,
      end_date: row.end_date as string,
      start_at: row.start_at as string,
      end_at: row.end_at as string,
      ...sums,
    };
  });
}

/** The plan PostgreSQL runs the statement with, and what each step took. */
export async function explainMetrics(plain: PlainSql, q: MetricsQuery): Promise<string[]> {
  const { text, params } = metricsStatement(q);
  const rows = await withoutJit(plain, `explain (analyze, buffers) ${text}`, params);
  return rows.map((row) => row['QUERY PLAN'] as string);
}
