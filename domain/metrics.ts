/**
 * The rules of the metrics report (GET /metrics/) that need no database: which ranges and time zones
 * it takes, how many periods a range makes, and how averages, rates and totals are derived from the
 * sums and counts each owner reads per period (db/sale/metrics.ts, db/checkout/metrics.ts,
 * db/subscription/metrics.ts), combined here. Dates are local calendar dates (YYYY-MM-DD) in the
 * report's time zone.
 */

export const METRIC_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type MetricInterval = (typeof METRIC_INTERVALS)[number];

export const DEFAULT_METRICS_TIME_ZONE = 'America/Sao_Paulo';
export const DEFAULT_METRICS_CURRENCY = 'BRL';

/** A year of days, leap day included: the response stays small and the query's work bounded. */
export const MAX_METRIC_PERIODS = 366;

/** No record of ours is older than this; it also keeps PostgreSQL clear of its year-zero edge. */
export const EARLIEST_METRICS_DATE = '1970-01-01';

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a YYYY-MM-DD date (already checked as a calendar date). */
function dayNumber(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d) / DAY_MS;
}

/**
 * How many periods `start`..`end` (both included) make: periods are whole calendar days, ISO weeks
 * (Monday first, as PostgreSQL's date_trunc('week')), calendar months or years; the first and last
 * may be partial.
 */
export function periodCount(start: string, end: string, interval: MetricInterval): number {
  const [ys, ms] = start.split('-').map(Number) as [number, number];
  const [ye, me] = end.split('-').map(Number) as [number, number];
  switch (interval) {
    case 'day':
      return dayNumber(end) - dayNumber(start) + 1;
    case 'week': {
      // 1970-01-01 was a Thursday: day n's Monday is n − ((n + 3) mod 7).
      const monday = (n: number) => n - ((((n + 3) % 7) + 7) % 7);
      return (monday(dayNumber(end)) - monday(dayNumber(start))) / 7 + 1;
    }
    case 'month':
      return (ye - ys) * 12 + (me - ms) + 1;
    case 'year':
      return ye - ys + 1;
  }
}

export interface RangeRefusal {
  code: 'invalid_date_range' | 'too_many_periods';
  message: string;
  detail: string;
}

/** Why a range cannot be reported, or null when it can. */
export function rangeRefusal(start: string, end: string, interval: MetricInterval): RangeRefusal | null {
  if (start < EARLIEST_METRICS_DATE) {
    return {
      code: 'invalid_date_range',
      message: 'start_date is too early',
      detail: `start_date must be ${EARLIEST_METRICS_DATE} or later`,
    };
  }
  if (end < start) {
    return {
      code: 'invalid_date_range',
      message: 'end_date is before start_date',
      detail: `end_date (${end}) must be on or after start_date (${start})`,
    };
  }
  const count = periodCount(start, end, interval);
  if (count > MAX_METRIC_PERIODS) {
    return {
      code: 'too_many_periods',
      message: 'The range has too many periods for the interval',
      detail: `${start} to ${end} by ${interval} makes ${count} periods; at most ${MAX_METRIC_PERIODS} are allowed (choose a longer interval or a shorter range)`,
    };
  }
  return null;
}

/**
 * An IANA zone name (`America/Sao_Paulo`, `UTC`, `Etc/GMT+3`) as the ICU database knows it, in its
 * proper case; null for anything else. Offsets such as `-03:00` are refused: PostgreSQL reads them
 * as POSIX zones, whose sign is the reverse of ISO 8601's.
 */
export function knownTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * `numerator / denominator` rounded to an integer, half away from zero (half up for the sums it is
 * given, which are never negative), exactly (BigInt); null for a zero denominator.
 */
export function roundedQuotient(numerator: number, denominator: number): number | null {
  if (denominator === 0) return null;
  const n = BigInt(numerator);
  const d = BigInt(denominator);
  const sign = n < 0n !== d < 0n ? -1n : 1n;
  const [a, b] = [n < 0n ? -n : n, d < 0n ? -d : d];
  return Number(sign * ((2n * a + b) / (2n * b)));
}

/** A share as a fraction with four decimal places (0.6667), half up; null when nothing was there to convert. */
export function shareOf(part: number, whole: number): number | null {
  const basisPoints = roundedQuotient(part * 10_000, whole);
  return basisPoints === null ? null : basisPoints / 10_000;
}

/** One period's sales, as their owner sums them: cents, and counts. */
export interface SalePeriodSums {
  revenue: number;
  refunds: number;
  salesCount: number;
  refundedSalesCount: number;
  /** What lost disputes took back of the period's sales. */
  chargebacks: number;
  /** The period's sales with a dispute (chargeback), whatever its outcome. */
  disputedSalesCount: number;
}

/** One period's checkouts (renewals left out): those opened, and those that succeeded. */
export interface CheckoutPeriodCounts {
  checkouts: number;
  succeededCheckouts: number;
}

/** One period's subscriptions: new and churned in it, active and their MRR (cents) at its end. */
export interface SubscriptionPeriodCounts {
  newSubscriptions: number;
  churnedSubscriptions: number;
  activeSubscriptions: number;
  mrr: number;
}

/** One period's sums (cents) and counts over its records. */
export interface PeriodSums {
  revenue: number;
  refunds: number;
  sales_count: number;
  refunded_sales_count: number;
  chargebacks: number;
  disputed_sales_count: number;
  new_subscriptions: number;
  churned_subscriptions: number;
  /** At the period's end. */
  active_subscriptions: number;
  /** At the period's end, in cents. */
  mrr: number;
  checkouts: number;
  succeeded_checkouts: number;
}

/**
 * The periods' sums from each owner's lists, which hold one entry per period of the same range, in
 * the periods' order (each statement buckets by the same bounds, db/metric-periods.ts).
 */
export function combinedSums(
  sales: readonly SalePeriodSums[],
  checkouts: readonly CheckoutPeriodCounts[],
  subscriptions: readonly SubscriptionPeriodCounts[],
): PeriodSums[] {
  if (checkouts.length !== sales.length || subscriptions.length !== sales.length) {
    throw new Error(
      `metrics: ${sales.length} sales, ${checkouts.length} checkout, ${subscriptions.length} subscription periods`,
    );
  }
  return sales.map((s, i) => {
    const c = checkouts[i]!;
    const u = subscriptions[i]!;
    return {
      revenue: s.revenue,
      refunds: s.refunds,
      sales_count: s.salesCount,
      refunded_sales_count: s.refundedSalesCount,
      chargebacks: s.chargebacks,
      disputed_sales_count: s.disputedSalesCount,
      new_subscriptions: u.newSubscriptions,
      churned_subscriptions: u.churnedSubscriptions,
      active_subscriptions: u.activeSubscriptions,
      mrr: u.mrr,
      checkouts: c.checkouts,
      succeeded_checkouts: c.succeededCheckouts,
    };
  });
}

export interface PeriodFigures extends PeriodSums {
  net_revenue: number;
  average_order_value: number | null;
  checkout_conversion: number | null;
}

/** The figures derived from a period's (or the range's) sums. */
export function figuresOf(sums: PeriodSums): PeriodFigures {
  return {
    ...sums,
    net_revenue: sums.revenue - sums.refunds - sums.chargebacks,
    average_order_value: roundedQuotient(sums.revenue, sums.sales_count),
    checkout_conversion: shareOf(sums.succeeded_checkouts, sums.checkouts),
  };
}

/**
 * The range's figures: flows (revenue, counts) add up over the periods; stocks (active
 * subscriptions, MRR) are those at the range's end, i.e. of its last period. Averages and rates
 * are taken of the totals, never averaged over periods.
 */
export function totalsOf(periods: readonly PeriodSums[]): PeriodFigures {
  const sum = (field: keyof PeriodSums) => periods.reduce((total, p) => total + p[field], 0);
  const last = periods.at(-1);
  return figuresOf({
    revenue: sum('revenue'),
    refunds: sum('refunds'),
    sales_count: sum('sales_count'),
    refunded_sales_count: sum('refunded_sales_count'),
    chargebacks: sum('chargebacks'),
    disputed_sales_count: sum('disputed_sales_count'),
    new_subscriptions: sum('new_subscriptions'),
    churned_subscriptions: sum('churned_subscriptions'),
    active_subscriptions: last?.active_subscriptions ?? 0,
    mrr: last?.mrr ?? 0,
    checkouts: sum('checkouts'),
    succeeded_checkouts: sum('succeeded_checkouts'),
  });
}
