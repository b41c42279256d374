import type { components } from '../../api/openapi-types.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Facts, recordPath, type ListPage } from './commerce.ts';
import { amount, day, moment, Table, type Column } from './components.ts';
import { mandateMessages, type MandateMessages } from './messages-mandates.ts';
import { dashboardPaths } from './paths.ts';
import { StatusFilter, StatusListPage } from './status-list.ts';

/** Pix Automático (GET /api/v1/mandates, decision 0096): the mandates, and one with its charges' attempts. */

type Mandate = components['schemas']['Mandate'];
type Charge = components['schemas']['MandateCharge'];
type Attempt = Charge['attempts'][number];

const word = (words: Record<string, string>, key: string) => words[key] ?? key;
/** A failure in the reader's words: the catalogue's for the codes it knows, else the API's. */
const reasonText = (t: MandateMessages, code: string | null, description: string | null) =>
  code === null ? '—' : (t.reasons[code] ?? description ?? code);

const mandateAmount = (locale: Locale, t: MandateMessages, m: Mandate) =>
  m.fixed_amount !== null ? amount(locale, m.fixed_amount, m.currency.toLowerCase()) : t.varies;

export interface MandatesView {
  locale: Locale;
  organizationId: string;
  status?: string;
  page: number;
  mandates: ListPage<Mandate> | null;
}

export function mandatesContent(v: MandatesView) {
  const path = dashboardPaths.section(v.organizationId, 'mandates');
  const t = mandateMessages(v.locale);
  const columns: Column<Mandate>[] = [
    {
      label: t.mandate,
      cell: (m) => html`<a href=${recordPath(v.organizationId, 'mandates', m.id)}>${m.object_label}</a>`,
    },
    { label: t.status, cell: (m) => word(t.mandateStatuses, m.status) },
    { label: t.debtor, cell: (m) => m.debtor.name },
    { label: t.periodicity, cell: (m) => word(t.periodicities, m.periodicity) },
    { label: t.amount, cell: (m) => mandateAmount(v.locale, t, m), numeric: true },
    {
      label: t.subscription,
      cell: (m) =>
        html`<a href=${recordPath(v.organizationId, 'subscriptions', m.subscription_id)}>${t.subscription}</a>`,
    },
    { label: t.createdAt, cell: (m) => moment(v.locale, m.created_at) },
  ];
  return html`
    <${StatusFilter} path=${path} t=${t} status=${v.status} options=${Object.entries(t.mandateStatuses)} />
    ${
      v.mandates
        ? html`<${StatusListPage}
            locale=${v.locale}
            path=${path}
            t=${t}
            status=${v.status}
            page=${v.page}
            list=${v.mandates}
            columns=${columns}
            empty=${t.none}
          />`
        : null
    }
  `;
}

/** A charge's attempts, each its date, kind, status and, when it failed, why. */
function attemptsList(locale: Locale, t: MandateMessages, attempts: Attempt[]) {
  if (attempts.length === 0) return '—';
  return html`<ul class="plain">
    ${attempts.map(
      (a) =>
        html`<li>
          ${t.attemptOf(day(locale, a.settlement_date), word(t.attemptKinds, a.kind), word(t.attemptStatuses, a.status))}
          ${
            a.failure_reason === null
              ? null
              : html` — ${reasonText(t, a.failure_reason, a.failure_description)}
                ${a.rejection_code ? html` <code>${a.rejection_code}</code>` : null}`
          }
        </li>`,
    )}
  </ul>`;
}

/** One mandate: its terms, its end, and its charges with their attempts. */
export function mandateDetails(v: {
  locale: Locale;
  organizationId: string;
  mandate: Mandate & { charges: Charge[] };
}) {
  const m = v.mandate;
  const t = mandateMessages(v.locale);
  const currency = m.currency.toLowerCase();
  const columns: Column<Charge>[] = [
    { label: t.period, cell: (c) => String(c.period), numeric: true },
    { label: t.dueDate, cell: (c) => day(v.locale, c.due_date) },
    { label: t.settlementDate, cell: (c) => day(v.locale, c.settlement_date) },
    { label: t.amount, cell: (c) => amount(v.locale, c.amount, currency), numeric: true },
    { label: t.status, cell: (c) => word(t.chargeStatuses, c.status) },
    { label: t.retries, cell: (c) => String(c.retries_requested), numeric: true },
    { label: t.reason, cell: (c) => reasonText(t, c.failure_reason, c.failure_description) },
    { label: t.attempts, cell: (c) => attemptsList(v.locale, t, c.attempts) },
  ];
  const rows: [string, unknown][] = [
    [t.status, word(t.mandateStatuses, m.status)],
    [t.debtor, `${m.debtor.name} (${m.debtor.tax_id})`],
    [t.periodicity, word(t.periodicities, m.periodicity)],
    [t.amount, mandateAmount(v.locale, t, m)],
    [t.payerMaximum, amount(v.locale, m.payer_maximum, currency)],
    [t.startDate, day(v.locale, m.start_date)],
    [
      t.subscription,
      html`<a href=${recordPath(v.organizationId, 'subscriptions', m.subscription_id)}>${m.subscription_id}</a>`,
    ],
    [t.createdAt, moment(v.locale, m.created_at)],
  ];
  if (m.rejection) rows.push([t.rejection, reasonText(t, m.rejection.code, m.rejection.description)]);
  if (m.cancellation) rows.push([t.cancellation, reasonText(t, m.cancellation.code, m.cancellation.description)]);
  return html`<${Facts} label=${t.mandate} rows=${rows} />
    <section aria-labelledby="charges-title">
      <h2 id="charges-title">${t.charges}</h2>
      <${Table} caption=${t.chargesCaption} columns=${columns} rows=${m.charges} empty=${t.noCharges} />
    </section>
    <p><a href=${dashboardPaths.section(v.organizationId, 'mandates')}>${t.all}</a></p>`;
}
