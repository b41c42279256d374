import { z } from 'zod';
import {
  DEFAULT_METRICS_CURRENCY,
  DEFAULT_METRICS_TIME_ZONE,
  EARLIEST_METRICS_DATE,
  MAX_METRIC_PERIODS,
  METRIC_INTERVALS,
  type PeriodFigures,
} from '../../domain/metrics.ts';
import type { MetricPeriod } from '../../db/metric-periods.ts';
import { validationErrors } from '../../use-cases/schemas/common.ts';

const localDate = z.iso.date();

export const metricsQuery = z.object({
  start_date: localDate.describe(
    `First local date of the range (YYYY-MM-DD, in \`timezone\`), included; ${EARLIEST_METRICS_DATE} or later`,
  ),
  end_date: localDate.describe('Last local date of the range (YYYY-MM-DD, in `timezone`), included'),
  interval: z
    .enum(METRIC_INTERVALS)
    .describe('Period length: calendar days, ISO weeks (Monday first), calendar months or years'),
  timezone: z
    .string()
    .min(1)
    .max(64)
    .default(DEFAULT_METRICS_TIME_ZONE)
    .describe('IANA time zone name in which dates and periods are read (America/Sao_Paulo, UTC, Europe/Lisbon)'),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/)
    .default(DEFAULT_METRICS_CURRENCY)
    .transform((c) => c.toUpperCase())
    .describe('Only records in this currency count (ISO 4217, any case)'),
  product_id: z.uuid().optional().describe('Only sales, subscriptions and checkouts of this product'),
  customer_id: z.uuid().optional().describe('Only sales, subscriptions and checkouts of this customer'),
});

const cents = (description: string) => z.number().int().describe(`${description}, in cents`);
const count = (description: string) => z.number().int().describe(description);

const figures = {
  revenue: cents('Sum of the amounts of the sales made in the period (after discounts)'),
  net_revenue: cents('revenue minus refunds and chargebacks'),
  refunds: cents('What has been refunded of the sales made in the period (up to today)'),
  sales_count: count('Sales made in the period that took money (amount above zero)'),
  refunded_sales_count: count('Sales made in the period refunded in whole or in part'),
  chargebacks: cents('What lost disputes (chargebacks) took back of the sales made in the period (up to today)'),
  disputed_sales_count: count(
    'Sales made in the period whose payment was disputed (a chargeback), whatever the outcome',
  ),
  average_order_value: z
    .number()
    .int()
    .nullable()
    .describe('revenue / sales_count, rounded half up to the cent; null without sales'),
  new_subscriptions: count('Subscriptions started in the period'),
  active_subscriptions: count('Subscriptions alive (not ended) at the end of the period, trials included'),
  churned_subscriptions: count('Subscriptions that ended in the period'),
  mrr: cents(
    'Monthly recurring revenue at the end of the period: the monthly amount of each subscription alive and out of ' +
      'trial then (its current amount; 12 months, 52 weeks or 365 days a year; each rounded half up to the cent), summed',
  ),
  checkouts: count('Checkouts opened in the period (renewal checkouts left out)'),
  succeeded_checkouts: count('Of those, the ones paid (status succeeded)'),
  checkout_conversion: z
    .number()
    .nullable()
    .describe('succeeded_checkouts / checkouts, a fraction with four decimal places (half up); null without checkouts'),
};

export const metricsPeriod = z.object({
  start_date: z.string().describe('First local date of the period (the range start cuts the first period)'),
  end_date: z.string().describe('Last local date of the period (the range end cuts the last period)'),
  start_at: z.string().describe('The local midnight the period starts at, as a UTC instant (included)'),
  end_at: z.string().describe('The local midnight after its last date, as a UTC instant (excluded)'),
  ...figures,
});

export const metricsReport = z.object({
  start_date: z.string(),
  end_date: z.string(),
  interval: z.enum(METRIC_INTERVALS),
  timezone: z.string(),
  currency: z.string(),
  periods: z.array(metricsPeriod),
  totals: z
    .object(figures)
    .describe(
      'Over the whole range: flows summed, active_subscriptions and mrr at its end, averages and rates of the sums',
    ),
});
export type MetricsReport = z.infer<typeof metricsReport>;

export const metricsValidationErrors = validationErrors({
  invalid_date_range: `end_date before start_date, or start_date before ${EARLIEST_METRICS_DATE}`,
  too_many_periods: `the range makes more than ${MAX_METRIC_PERIODS} periods of the interval`,
  invalid_timezone: 'timezone is not an IANA time zone name',
});

export function presentPeriod(row: MetricPeriod, f: PeriodFigures) {
  return {
    ...f,
    start_date: row.start_date,
    end_date: row.end_date,
    start_at: row.start_at,
    end_at: row.end_at,
  };
}
