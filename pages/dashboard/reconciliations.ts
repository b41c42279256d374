import type { components } from '../../api/openapi-types.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Facts, recordPath, type ListPage } from './commerce.ts';
import { amount, Field, moment, PostForm, Table, type Column } from './components.ts';
import { reconciliationMessages, type ReconciliationMessages } from './messages-settings-reconciliation.ts';
import { dashboardPaths } from './paths.ts';
import { StatusFilter, StatusListPage } from './status-list.ts';

/** Reconciliation (GET/POST /api/v1/reconciliations, decision 0076): reports, one report's lines, a run now. */

type Report = components['schemas']['Reconciliation'] & { reason_counts: Record<string, number> };
type Line = { kind: string; gateway_id: string | null; reference: string | null; ours: number; theirs: number };
type ReportLine = Line & { difference: number; reason: string | null; repair: string | null };

/** The reasons in the dashboard's words (the catalogue's); fee, instalment timing and withholding are expected. */
const reasonWord = (t: ReconciliationMessages, reason: string) => t.reasons[reason] ?? reason;

const statusOptions = (t: ReconciliationMessages) =>
  [
    ['drift', t.drift],
    ['balanced', t.balanced],
  ] as const;

const statusText = (t: ReconciliationMessages, status: string) =>
  status === 'drift' ? html`<strong>${t.drift}</strong>` : status === 'balanced' ? t.balanced : status;

/** Each reason with its count, e.g. "Gateway fee (expected): 2; Missing in our books: 1". */
function reasonCounts(t: ReconciliationMessages, counts: Record<string, number>) {
  const entries = Object.entries(counts);
  if (entries.length === 0) return html`<span class="muted">${t.none}</span>`;
  return html`<ul class="plain">
    ${entries.map(([reason, n]) => html`<li>${reasonWord(t, reason)}: ${n}</li>`)}
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
  const t = reconciliationMessages(v.locale);
  const columns: Column<Report>[] = [
    {
      label: t.dayUtc,
      cell: (r) => html`<a href=${recordPath(v.organizationId, 'reconciliations', r.id)}>${t.day(r.day)}</a>`,
    },
    { label: t.status, cell: (r) => statusText(t, r.status) },
    { label: t.unmatched, cell: (r) => amount(v.locale, r.unmatched_total), numeric: true },
    {
      label: t.linesUnmatched,
      cell: (r) => t.linesOf(r.unmatched_count, r.matched_count + r.unmatched_count),
      numeric: true,
    },
    { label: t.reasonsLabel, cell: (r) => reasonCounts(t, r.reason_counts) },
    { label: t.runAt, cell: (r) => moment(v.locale, r.created_at) },
  ];
  return html`
    <${PostForm} action=${path} csrf=${v.csrf} label=${t.run} className="dash-form events-form">
      <${Field} label=${t.dayUtc} name="day" type="date" value=${v.day} required=${true} hint=${t.dayHint} />
      <div class="actions"><button type="submit" class="button">${t.run}</button></div>
    <//>
    <${StatusFilter} path=${path} t=${t} status=${v.status} options=${statusOptions(t)} />
    ${
      v.reports
        ? html`<section aria-labelledby="reports-title">
            <h2 id="reports-title">${t.reports}</h2>
            <${StatusListPage}
              locale=${v.locale}
              path=${path}
              t=${t}
              status=${v.status}
              page=${v.page}
              list=${v.reports}
              columns=${columns}
              empty=${t.noReports}
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
  const t = reconciliationMessages(v.locale);
  const columns: Column<ReportLine>[] = [
    { label: t.kind, cell: (l) => t.kinds[l.kind] ?? l.kind },
    { label: t.gatewayPayment, cell: (l) => (l.gateway_id ? html`<code>${l.gateway_id}</code>` : '—') },
    { label: t.ours, cell: (l) => amount(v.locale, l.ours), numeric: true },
    { label: t.gateway, cell: (l) => amount(v.locale, l.theirs), numeric: true },
    { label: t.difference, cell: (l) => amount(v.locale, l.difference), numeric: true },
    {
      label: t.reason,
      cell: (l) => (l.reason ? reasonWord(t, l.reason) : html`<span class="muted">${t.matched}</span>`),
    },
    { label: t.repair, cell: (l) => (l.repair ? (t.repairs[l.repair] ?? l.repair) : '—') },
  ];
  return html`<${Facts}
      label=${t.report}
      rows=${[
        [t.dayUtc, t.day(r.day)],
        [t.status, statusText(t, r.status)],
        [t.ourBooks, amount(v.locale, r.ours_total)],
        [t.ledger, amount(v.locale, r.theirs_total)],
        [t.unmatched, amount(v.locale, r.unmatched_total)],
        [t.reasonsLabel, reasonCounts(t, r.reason_counts)],
        [t.runAt, moment(v.locale, r.created_at)],
      ]}
    />
    <section aria-labelledby="lines-title">
      <h2 id="lines-title">${t.lines}</h2>
      <p><a href=${`${self}/lines.csv`} download>${t.download}</a></p>
      <${Table} caption=${t.linesCaption} columns=${columns} rows=${r.lines} empty=${t.nothingMoved} />
    </section>
    <p><a href=${dashboardPaths.section(v.organizationId, 'reconciliations')}>${t.all}</a></p>`;
}
