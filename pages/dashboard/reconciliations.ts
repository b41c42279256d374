import type { components } from '../../api/openapi-types.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Facts, recordPath, type ListPage } from './commerce.ts';
import { amount, Field, moment, Pager, PostForm, Select, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/** Reconciliation (GET/POST /api/v1/reconciliations, decision 0076): reports, one report's lines, a run now. */

type Report = components['schemas']['Reconciliation'] & { reason_counts: Record<string, number> };
type Line = { kind: string; gateway_id: string | null; reference: string | null; ours: number; theirs: number };
type ReportLine = Line & { difference: number; reason: string | null; repair: string | null };

/** The reasons in the dashboard's words; fee, instalment timing and withholding are expected. */
export const REASON_WORDS: Record<string, string> = {
  missing_in_books: 'Missing in our books',
  missing_at_gateway: 'Missing at the gateway',
  amount_mismatch: 'Amount mismatch',
  status_mismatch: 'Status mismatch',
  installment_timing: 'Instalment timing (expected)',
  release_timing: 'Released on another day (expected)',
  partial_refund: 'Partial refund',
  fee: 'Gateway fee (expected)',
  dispute: 'Dispute',
  withholding: 'Withholding (expected)',
};
const reasonWord = (reason: string) => REASON_WORDS[reason] ?? reason;
/** What the run did for a line missing in our books. */
const REPAIR_LABELS: Record<string, string> = {
  gateway_refunds: 'Refund recorded',
  payment_notice: 'Payment applied',
};

const STATUS_OPTIONS = [
  ['', 'Any status'],
  ['drift', 'Drift'],
  ['balanced', 'Balanced'],
] as const;

const statusText = (status: string) =>
  status === 'drift' ? html`<strong>Drift</strong>` : status === 'balanced' ? 'Balanced' : status;

/** Each reason with its count, e.g. "Gateway fee (expected): 2; Missing in our books: 1". */
function reasonCounts(counts: Record<string, number>) {
  const entries = Object.entries(counts);
  if (entries.length === 0) return html`<span class="muted">None</span>`;
  return html`<ul class="plain">
    ${entries.map(([reason, n]) => html`<li>${reasonWord(reason)}: ${n}</li>`)}
  </ul>`;
}

export interface ReconciliationsView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  /** The run form's day: yesterday (UTC) unless the member sent another. */
  day: string;
  status?: string;
  page: number;
  reports: ListPage<Report> | null;
}

export function reconciliationsContent(v: ReconciliationsView) {
  const path = dashboardPaths.section(v.organizationId, 'reconciliations');
  const columns: Column<Report>[] = [
    {
      label: 'Day (UTC)',
      cell: (r) => html`<a href=${recordPath(v.organizationId, 'reconciliations', r.id)}>${r.day}</a>`,
    },
    { label: 'Status', cell: (r) => statusText(r.status) },
    { label: 'Unmatched', cell: (r) => amount(v.locale, r.unmatched_total), numeric: true },
    {
      label: 'Lines unmatched',
      cell: (r) => `${r.unmatched_count} of ${r.matched_count + r.unmatched_count}`,
      numeric: true,
    },
    { label: 'Reasons', cell: (r) => reasonCounts(r.reason_counts) },
    { label: 'Run at', cell: (r) => moment(v.locale, r.created_at) },
  ];
  const total = v.reports?.pagination.total_count ?? 0;
  return html`
    <${PostForm} action=${path} csrf=${v.csrf} label="Reconcile now" className="dash-form events-form">
      <${Field}
        label="Day (UTC)"
        name="day"
        type="date"
        value=${v.day}
        required=${true}
        hint="Our books of that day against the gateway's ledger"
      />
      <div class="actions"><button type="submit" class="button">Reconcile now</button></div>
    <//>
    <form method="get" action=${path} class="dash-form events-form" aria-label="Filter reports">
      <${Select} label="Status" name="status" value=${v.status ?? ''} options=${STATUS_OPTIONS} />
      <div class="actions">
        <button type="submit" class="button secondary">Filter</button>
        <a href=${path}>Clear</a>
      </div>
    </form>
    ${
      v.reports
        ? html`<section aria-labelledby="reports-title">
            <h2 id="reports-title">Reports</h2>
            <p class="muted">
              ${total === 1 ? '1 report' : `${total} reports`}, newest day first. Drift: a difference other than the
              gateway's fees, instalment timing or withholding.
            </p>
            <${Table}
              caption="Reconciliation reports"
              columns=${columns}
              rows=${v.reports.items}
              empty="No reports yet."
            />
            <${Pager}
              path=${path}
              page=${v.page}
              maxPage=${v.reports.pagination.max_page}
              query=${{ status: v.status }}
            />
          </section>`
        : null
    }
  `;
}

/** One report: its totals, its reasons, its lines and their CSV. */
export function reconciliationDetails(v: {
  locale: Locale;
  organizationId: string;
  report: Report & { lines: ReportLine[] };
}) {
  const r = v.report;
  const self = recordPath(v.organizationId, 'reconciliations', r.id);
  const columns: Column<ReportLine>[] = [
    { label: 'Kind', cell: (l) => l.kind },
    { label: 'Gateway payment', cell: (l) => (l.gateway_id ? html`<code>${l.gateway_id}</code>` : '—') },
    { label: 'Ours', cell: (l) => amount(v.locale, l.ours), numeric: true },
    { label: 'Gateway', cell: (l) => amount(v.locale, l.theirs), numeric: true },
    { label: 'Difference', cell: (l) => amount(v.locale, l.difference), numeric: true },
    { label: 'Reason', cell: (l) => (l.reason ? reasonWord(l.reason) : html`<span class="muted">Matched</span>`) },
    { label: 'Repair', cell: (l) => (l.repair ? REPAIR_LABELS[l.repair] : '—') },
  ];
  return html`<${Facts}
      label="Report"
      rows=${[
        ['Day (UTC)', r.day],
        ['Status', statusText(r.status)],
        ['Our books', amount(v.locale, r.ours_total)],
        ["Gateway's ledger", amount(v.locale, r.theirs_total)],
        ['Unmatched', amount(v.locale, r.unmatched_total)],
        ['Reasons', reasonCounts(r.reason_counts)],
        ['Run at', moment(v.locale, r.created_at)],
      ]}
    />
    <section aria-labelledby="lines-title">
      <h2 id="lines-title">Lines</h2>
      <p><a href=${`${self}/lines.csv`} download>Download the lines (CSV)</a></p>
      <${Table} caption="Report lines" columns=${columns} rows=${r.lines} empty="Nothing moved that day." />
    </section>
    <p><a href=${dashboardPaths.section(v.organizationId, 'reconciliations')}>All reports</a></p>`;
}
