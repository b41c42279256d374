import type { EntityManager } from '@mikro-orm/postgresql';
import type { MetricInterval } from '../domain/metrics.ts';
import { kyselyOf, sql } from './kysely.ts';

/** What one metrics report reads: an organization's records in a local date range, bucketed by interval. */
export interface MetricsQuery extends MetricsFilters {
  /** Local dates (YYYY-MM-DD) in `timeZone`, both included. */
  startDate: string;
  endDate: string;
  interval: MetricInterval;
  /** An IANA name PostgreSQL's zone database knows (else UnknownTimeZone). */
  timeZone: string;
}

/** Whose records each owner sums: sales, checkouts and subscriptions of other currencies are left out. */
export interface MetricsFilters {
  organizationId: string;
  /** Upper case (stored so on sales and checkouts, lower case on subscriptions: the price's). */
  currency: string;
  productId: string | null;
  customerId: string | null;
}

/** One period of the report, as the API shows it. */
export interface MetricPeriod {
  /** The period's first and last local dates (the range's ends cut the first and last periods). */
  start_date: string;
  end_date: string;
  /** The instants of its local midnights (ISO 8601, UTC): start included, end excluded. */
  start_at: string;
  end_at: string;
}

/**
 * The periods of a range and their bounds: `bounds` are the instants of the periods' local midnights,
 * one more than the periods (period i is bounds[i] included to bounds[i + 1] excluded), as PostgreSQL
 * writes a timestamptz, which is what the owners' statements take back (`periodsOf`).
 */
export interface MetricPeriods {
  periods: MetricPeriod[];
  bounds: string[];
}

/** PostgreSQL does not know the zone (its database and ICU's can differ by a release). */
export class UnknownTimeZone extends Error {}

/** As toISOString writes it; JavaScript's Date cannot read PostgreSQL's text of 10000-01-01 (the day after 9999-12-31). */
const ISO_8601 = sql.lit('YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

/**
 * The range's periods, computed once here and handed to each owner's statement as their bounds: the
 * periods are local dates (generate_series over them), each one's bounds the instants of its local
 * midnights in the zone PostgreSQL knows.
 */
export async function metricPeriods(em: EntityManager, q: MetricsQuery): Promise<MetricPeriods> {
  const step = sql`('1 ' || ${q.interval})::interval`;
  const local = (date: unknown) => sql`(${date})::timestamp at time zone ${q.timeZone}`;
  const statement = sql<MetricPeriod & { start_bound: string; end_bound: string }>`
    select period_start::text as start_date, period_end::text as end_date,
           to_char(${local(sql`period_start`)} at time zone 'UTC', ${ISO_8601}) as start_at,
           to_char(${local(sql`period_end + 1`)} at time zone 'UTC', ${ISO_8601}) as end_at,
           ${local(sql`period_start`)}::text as start_bound,
           ${local(sql`period_end + 1`)}::text as end_bound
    from (
      select d, greatest(d::date, ${q.startDate}::date) as period_start,
             least((d + ${step})::date - 1, ${q.endDate}::date) as period_end
      from generate_series(date_trunc(${q.interval}, ${q.startDate}::date::timestamp), ${q.endDate}::date::timestamp, ${step}) as d
    ) local_dates
    order by d`;
  const { rows } = await statement.execute(kyselyOf(em)).catch(unknownTimeZone);
  return {
    periods: rows.map(({ start_date, end_date, start_at, end_at }) => ({ start_date, end_date, start_at, end_at })),
    bounds: [...rows.map((row) => row.start_bound), ...rows.slice(-1).map((row) => row.end_bound)],
  };
}

function unknownTimeZone(err: unknown): never {
  const e = err as { code?: string; message?: string };
  if (e.code === '22023' && /time zone/.test(e.message ?? '')) throw new UnknownTimeZone(e.message);
  throw err;
}

/**
 * The periods as a table (n from 1, start_at, end_at) for an owner's statement: the bounds
 * `metricPeriods` computed, so every owner buckets its rows by the same instants.
 */
export function periodsOf(bounds: readonly string[]) {
  return sql<{ n: number; start_at: Date; end_at: Date }>`(
    select n, b[n] as start_at, b[n + 1] as end_at
    from (select ${bounds}::timestamptz[] as b) bounds, generate_series(1, cardinality(b) - 1) as n)`;
}

/** Where the range starts and ends (the first period's start, the last one's end). */
export function rangeOf(bounds: readonly string[]) {
  return { start: sql<Date>`${bounds[0]}::timestamptz`, end: sql<Date>`${bounds.at(-1)}::timestamptz` };
}

/**
 * Runs the report's statements in one transaction without JIT compilation: over a year of records
 * the planner's cost passes jit_above_cost, and compiling took about a second, where running takes
 * tens of milliseconds (bench/metrics.ts).
 */
export async function withoutJit<T>(em: EntityManager, run: (tx: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(async (tx) => {
    await sql`set local jit = off`.execute(kyselyOf(tx));
    return run(tx);
  });
}
