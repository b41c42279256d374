import { METRIC_INTERVALS, type MetricInterval } from '../../domain/metrics.ts';
import type { MetricsReport } from '../../api/schemas/metrics.ts';
import { calendarDate, type Locale } from '../locale.ts';
import { html } from '../render.ts';
import { amount, Field, Select, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/**
 * Metrics: the form that picks a range, an interval and a time zone (a GET: the page is its address),
 * one chart per metric (drawn by assets/metrics.js with uPlot from the JSON the page carries), and the
 * same figures in tables, which are what a screen reader or a page without scripts reads.
 */

export interface MetricsChoice {
  start_date: string;
  end_date: string;
  interval: string;
  timezone: string;
}

export interface MetricsView {
  locale: Locale;
  organizationId: string;
  choice: MetricsChoice;
  /** The API's report; null when it refused the choice (the page's alert says why). */
  report: MetricsReport | null;
}

type Period = MetricsReport['periods'][number];
type ChartedMetric = 'revenue' | 'mrr' | 'sales_count' | 'active_subscriptions';

/** The charts, in the page's order: the figure they draw and whether it is money (cents) or a count. */
export const CHARTS: readonly { metric: ChartedMetric; title: string; money: boolean }[] = [
  { metric: 'revenue', title: 'Revenue', money: true },
  { metric: 'mrr', title: 'MRR (monthly recurring revenue)', money: true },
  { metric: 'sales_count', title: 'Sales', money: false },
  { metric: 'active_subscriptions', title: 'Active subscriptions', money: false },
];

const INTERVAL_LABELS: Record<MetricInterval, string> = { day: 'Day', week: 'Week', month: 'Month', year: 'Year' };
const PER_INTERVAL: Record<string, string> = { day: 'per day', week: 'per week', month: 'per month', year: 'per year' };

/** The time zones offered: Brazil's, then a few others; a zone typed into the address is added to them. */
const TIME_ZONES: readonly (readonly [string, string])[] = [
  ['America/Sao_Paulo', 'Brasília (America/Sao_Paulo)'],
  ['America/Bahia', 'Bahia (America/Bahia)'],
  ['America/Fortaleza', 'Fortaleza (America/Fortaleza)'],
  ['America/Recife', 'Recife (America/Recife)'],
  ['America/Belem', 'Belém (America/Belem)'],
  ['America/Manaus', 'Amazonas (America/Manaus)'],
  ['America/Cuiaba', 'Mato Grosso (America/Cuiaba)'],
  ['America/Porto_Velho', 'Rondônia (America/Porto_Velho)'],
  ['America/Rio_Branco', 'Acre (America/Rio_Branco)'],
  ['America/Noronha', 'Fernando de Noronha (America/Noronha)'],
  ['UTC', 'UTC'],
  ['Europe/Lisbon', 'Lisbon (Europe/Lisbon)'],
  ['America/New_York', 'New York (America/New_York)'],
];

export function metricsContent(v: MetricsView) {
  return html`
    <${ChoiceForm} organizationId=${v.organizationId} choice=${v.choice} />
    ${v.report ? html`<${Charts} view=${v} report=${v.report} /><${Figures} view=${v} report=${v.report} />` : null}
  `;
}

function ChoiceForm({ organizationId, choice }: { organizationId: string; choice: MetricsChoice }) {
  const zones = TIME_ZONES.some(([zone]) => zone === choice.timezone)
    ? TIME_ZONES
    : [...TIME_ZONES, [choice.timezone, choice.timezone] as const];
  return html`<form
    method="get"
    action=${dashboardPaths.section(organizationId, 'metrics')}
    class="dash-form metrics-form"
    aria-label="Figures to show"
  >
    <${Field} label="From" name="start_date" type="date" value=${choice.start_date} required />
    <${Field} label="To" name="end_date" type="date" value=${choice.end_date} required />
    <${Select}
      label="Interval"
      name="interval"
      value=${choice.interval}
      options=${METRIC_INTERVALS.map((i) => [i, INTERVAL_LABELS[i]] as const)}
    />
    <${Select} label="Time zone" name="timezone" value=${choice.timezone} options=${zones} />
    <button type="submit" class="button">Show</button>
  </form>`;
}

/** A period as a chart's axis names it: short, by its first date. */
function axisLabel(locale: Locale, interval: string, period: Period): string {
  const date = new Date(`${period.start_date}T12:00:00Z`);
  const options: Intl.DateTimeFormatOptions =
    interval === 'year'
      ? { year: 'numeric' }
      : interval === 'month'
        ? { month: 'short', year: 'numeric' }
        : { day: '2-digit', month: '2-digit' };
  return new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(date);
}

/** A period as the tables name it: its dates, the range cutting the first and the last. */
function periodName(locale: Locale, period: Period): string {
  const first = calendarDate(locale, period.start_date);
  return period.start_date === period.end_date ? first : `${first} – ${calendarDate(locale, period.end_date)}`;
}

/** The figures for assets/metrics.js, as JSON that no `</script>` or line separator can end early. */
function chartData(locale: Locale, report: MetricsReport): string {
  const data = {
    labels: report.periods.map((p) => axisLabel(locale, report.interval, p)),
    series: Object.fromEntries(CHARTS.map((c) => [c.metric, report.periods.map((p) => p[c.metric])])),
  };
  return JSON.stringify(data).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function Charts({ view, report }: { view: MetricsView; report: MetricsReport }) {
  const range = `${calendarDate(view.locale, report.start_date)} to ${calendarDate(view.locale, report.end_date)}`;
  const total = (c: (typeof CHARTS)[number]) =>
    c.money ? amount(view.locale, report.totals[c.metric]) : String(report.totals[c.metric]);
  const summary = (c: (typeof CHARTS)[number]) =>
    c.metric === 'revenue' || c.metric === 'sales_count'
      ? `${total(c)} in total`
      : `${total(c)} at the end of the range`;
  return html`<section aria-labelledby="charts-title">
    <h2 id="charts-title">Charts</h2>
    <p class="muted">${range}, ${PER_INTERVAL[report.interval]}, in ${report.timezone} time.</p>
    <div class="chart-grid">
      ${CHARTS.map(
        (c) =>
          html`<figure class="chart-card">
            <figcaption>${c.title}</figcaption>
            <div
              class="chart"
              id=${`chart-${c.metric}`}
              data-metric=${c.metric}
              data-money=${c.money ? 'brl' : undefined}
              data-label=${`${c.title} ${PER_INTERVAL[report.interval]}, ${range}: ${summary(c)}.`}
            ></div>
          </figure>`,
      )}
    </div>
    <script
      type="application/json"
      id="metrics-data"
      dangerouslySetInnerHTML=${{
        __html: chartData(view.locale, report),
      }}
    ></script>
  </section>`;
}

function Figures({ view, report }: { view: MetricsView; report: MetricsReport }) {
  const money = (cents: number | null) => amount(view.locale, cents);
  const t = report.totals;
  const percent = (fraction: number | null) =>
    fraction === null
      ? '—'
      : new Intl.NumberFormat(view.locale, { style: 'percent', maximumFractionDigits: 2 }).format(fraction);
  const totals: [string, string][] = [
    ['Revenue', money(t.revenue)],
    ['Refunds', money(t.refunds)],
    ['Net revenue', money(t.net_revenue)],
    ['Sales', String(t.sales_count)],
    ['Average order value', money(t.average_order_value)],
    ['MRR at the end of the range', money(t.mrr)],
    ['Active subscriptions at the end of the range', String(t.active_subscriptions)],
    ['New subscriptions', String(t.new_subscriptions)],
    ['Churned subscriptions', String(t.churned_subscriptions)],
    ['Checkout conversion', percent(t.checkout_conversion)],
  ];
  const byPeriod: Column<Period>[] = [
    { label: 'Period', cell: (p) => periodName(view.locale, p) },
    { label: 'Revenue', cell: (p) => money(p.revenue), numeric: true },
    { label: 'MRR', cell: (p) => money(p.mrr), numeric: true },
    { label: 'Sales', cell: (p) => String(p.sales_count), numeric: true },
    { label: 'Active subscriptions', cell: (p) => String(p.active_subscriptions), numeric: true },
  ];
  return html`<section aria-labelledby="totals-title">
      <h2 id="totals-title">Totals</h2>
      <${Table}
        caption=${`Over the range, in ${report.currency}`}
        columns=${[
          { label: 'Metric', cell: (r: [string, string]) => r[0] },
          { label: 'Value', cell: (r: [string, string]) => r[1], numeric: true },
        ]}
        rows=${totals}
        empty=""
      />
    </section>
    <section aria-labelledby="periods-title">
      <h2 id="periods-title">By period</h2>
      <${Table} caption="The charts' figures" columns=${byPeriod} rows=${report.periods} empty="No periods." />
    </section>`;
}
