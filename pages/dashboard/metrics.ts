import { METRIC_INTERVALS, type MetricInterval } from '../../domain/metrics.ts';
import type { MetricsReport } from '../../api/schemas/metrics.ts';
import { calendarDate, type Locale } from '../locale.ts';
import { html } from '../render.ts';
import { amount, Field, Select, Table, type Column } from './components.ts';
import { metricsMessages } from './messages-metrics.ts';
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
export const CHARTS: readonly { metric: ChartedMetric; money: boolean }[] = [
  { metric: 'revenue', money: true },
  { metric: 'mrr', money: true },
  { metric: 'sales_count', money: false },
  { metric: 'active_subscriptions', money: false },
];

/** The time zones offered: Brazil's, then a few others; a zone typed into the address is added to them. */
const TIME_ZONES = [
  'America/Sao_Paulo',
  'America/Bahia',
  'America/Fortaleza',
  'America/Recife',
  'America/Belem',
  'America/Manaus',
  'America/Cuiaba',
  'America/Porto_Velho',
  'America/Rio_Branco',
  'America/Noronha',
  'UTC',
  'Europe/Lisbon',
  'America/New_York',
];

/** A zone as the select names it: "Brasília (America/Sao_Paulo)"; UTC and zones not listed by their name. */
const zoneOption = (locale: Locale, zone: string) => [zone, metricsMessages(locale).zones[zone] ?? zone] as const;

export function metricsContent(v: MetricsView) {
  return html`
    <${ChoiceForm} locale=${v.locale} organizationId=${v.organizationId} choice=${v.choice} />
    ${v.report ? html`<${Charts} view=${v} report=${v.report} /><${Figures} view=${v} report=${v.report} />` : null}
  `;
}

function ChoiceForm({
  locale,
  organizationId,
  choice,
}: {
  locale: Locale;
  organizationId: string;
  choice: MetricsChoice;
}) {
  const t = metricsMessages(locale);
  const listed = TIME_ZONES.includes(choice.timezone) ? TIME_ZONES : [...TIME_ZONES, choice.timezone];
  return html`<form
    method="get"
    action=${dashboardPaths.section(organizationId, 'metrics')}
    class="dash-form metrics-form"
    aria-label=${t.form}
  >
    <${Field} label=${t.from} name="start_date" type="date" value=${choice.start_date} required />
    <${Field} label=${t.to} name="end_date" type="date" value=${choice.end_date} required />
    <${Select}
      label=${t.interval}
      name="interval"
      value=${choice.interval}
      options=${METRIC_INTERVALS.map((i: MetricInterval) => [i, t.intervals[i] ?? i] as const)}
    />
    <${Select}
      label=${t.timeZone}
      name="timezone"
      value=${choice.timezone}
      options=${listed.map((zone) => zoneOption(locale, zone))}
    />
    <button type="submit" class="button">${t.show}</button>
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
  const t = metricsMessages(view.locale);
  const range = t.range(calendarDate(view.locale, report.start_date), calendarDate(view.locale, report.end_date));
  const per = t.perInterval[report.interval] ?? report.interval;
  const total = (c: (typeof CHARTS)[number]) =>
    c.money ? amount(view.locale, report.totals[c.metric]) : String(report.totals[c.metric]);
  const summary = (c: (typeof CHARTS)[number]) =>
    c.metric === 'revenue' || c.metric === 'sales_count' ? t.inTotal(total(c)) : t.atEnd(total(c));
  return html`<section aria-labelledby="charts-title">
    <h2 id="charts-title">${t.chartsTitle}</h2>
    <p class="muted">${t.chartsNote(range, per, report.timezone)}</p>
    <div class="chart-grid">
      ${CHARTS.map(
        (c) =>
          html`<figure class="chart-card">
            <figcaption>${t.charts[c.metric]}</figcaption>
            <div
              class="chart"
              id=${`chart-${c.metric}`}
              data-metric=${c.metric}
              data-money=${c.money ? 'brl' : undefined}
              data-label=${`${t.charts[c.metric]} ${per}, ${range}: ${summary(c)}.`}
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
  const w = metricsMessages(view.locale);
  const t = report.totals;
  const percent = (fraction: number | null) =>
    fraction === null
      ? '—'
      : new Intl.NumberFormat(view.locale, { style: 'percent', maximumFractionDigits: 2 }).format(fraction);
  const totals: [string, string][] = [
    [w.totals.revenue, money(t.revenue)],
    [w.totals.refunds, money(t.refunds)],
    [w.totals.net, money(t.net_revenue)],
    [w.totals.sales, String(t.sales_count)],
    [w.totals.average, money(t.average_order_value)],
    [w.totals.mrr, money(t.mrr)],
    [w.totals.active, String(t.active_subscriptions)],
    [w.totals.new, String(t.new_subscriptions)],
    [w.totals.churned, String(t.churned_subscriptions)],
    [w.totals.conversion, percent(t.checkout_conversion)],
  ];
  const byPeriod: Column<Period>[] = [
    { label: w.period, cell: (p) => periodName(view.locale, p) },
    { label: w.totals.revenue, cell: (p) => money(p.revenue), numeric: true },
    { label: 'MRR', cell: (p) => money(p.mrr), numeric: true },
    { label: w.totals.sales, cell: (p) => String(p.sales_count), numeric: true },
    { label: w.charts.active_subscriptions, cell: (p) => String(p.active_subscriptions), numeric: true },
  ];
  return html`<section aria-labelledby="totals-title">
      <h2 id="totals-title">${w.totalsTitle}</h2>
      <${Table}
        caption=${w.overRange(report.currency)}
        columns=${[
          { label: w.metric, cell: (r: [string, string]) => r[0] },
          { label: w.value, cell: (r: [string, string]) => r[1], numeric: true },
        ]}
        rows=${totals}
        empty=""
      />
    </section>
    <section aria-labelledby="periods-title">
      <h2 id="periods-title">${w.byPeriod}</h2>
      <${Table} caption=${w.chartsFigures} columns=${byPeriod} rows=${report.periods} empty=${w.noPeriods} />
    </section>`;
}
