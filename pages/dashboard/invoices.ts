import { INVOICE_STATUSES } from '../../domain/invoices.ts';
import type { InvoiceBody } from '../../api/schemas/invoices.ts';
import type { SubscriptionBody } from '../../api/schemas/subscriptions.ts';
import { html } from '../render.ts';
import {
  CustomerLink,
  declineText,
  FilterForm,
  recordPath,
  statusOptions,
  statusWord,
  type CommerceContext,
  type ListPage,
} from './commerce.ts';
import { amount, day, Field, moment, Pager, PostForm, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/** Extra charges: a subscription's invoices, the form that creates one, and the section that lists them. */

export function invoiceColumns(c: CommerceContext): Column<InvoiceBody>[] {
  return [
    { label: 'Number', cell: (i) => i.number },
    { label: 'Description', cell: (i) => i.description ?? '—' },
    { label: 'Amount', cell: (i) => amount(c.locale, i.amount, i.currency), numeric: true },
    { label: 'Due date', cell: (i) => day(c.locale, i.due_date) },
    { label: 'Last day to pay', cell: (i) => day(c.locale, i.expiration_date) },
    {
      label: 'Status',
      cell: (i) =>
        i.failure_reason ? `${statusWord(i.status)}: ${declineText(i.failure_reason)}` : statusWord(i.status),
    },
    { label: 'Paid', cell: (i) => moment(c.locale, i.paid_at) },
    { label: 'Workflow', cell: (i) => html`<a href=${i.workflow_url}>${i.workflow_id}</a>` },
  ];
}

export interface InvoiceFormValues {
  amount?: string;
  description?: string;
  due_date?: string;
}

/** The extra charge's form: amount in reais, what it is for, the due date. */
export function InvoiceForm({ action, csrf, values }: { action: string; csrf: string; values: InvoiceFormValues }) {
  return html`<${PostForm} action=${action} csrf=${csrf} label="Create an extra charge">
    <${Field}
      label="Amount (R$)"
      name="amount"
      value=${values.amount}
      required
      inputmode="decimal"
      hint="In reais, e.g. 25,00. Charged to the subscription's card."
    />
    <${Field} label="Description" name="description" value=${values.description} maxlength="255" />
    <${Field} label="Due date" name="due_date" type="date" value=${values.due_date} required />
    <button type="submit" class="button">Create extra charge</button>
  <//>`;
}

/** One extra charge with the subscription it belongs to (the section's rows). */
export interface SubscriptionInvoice {
  invoice: InvoiceBody;
  subscription: SubscriptionBody;
}

export interface InvoicesView extends CommerceContext {
  /** The page of subscriptions whose extra charges are shown; null when the API refused the list. */
  subscriptions: ListPage<SubscriptionBody> | null;
  rows: SubscriptionInvoice[];
  page: number;
  status?: string;
}

export function invoicesContent(v: InvoicesView) {
  const path = dashboardPaths.section(v.organizationId, 'invoices');
  const columns: Column<SubscriptionInvoice>[] = [
    {
      label: 'Subscription',
      cell: ({ subscription: s }) =>
        html`<a href=${recordPath(v.organizationId, 'subscriptions', s.id)}
          >${v.names.products.get(s.product_id) ?? s.product_id}</a
        >`,
    },
    {
      label: 'Customer',
      cell: ({ subscription: s }) =>
        html`<${CustomerLink} organizationId=${v.organizationId} id=${s.customer_id} names=${v.names} />`,
    },
    // The section's table is wide already: the workflow and last day are on the subscription's page.
    ...invoiceColumns(v)
      .filter((col) => col.label !== 'Workflow' && col.label !== 'Last day to pay')
      .map((col) => ({ ...col, cell: (row: SubscriptionInvoice) => col.cell(row.invoice) })),
  ];
  return html`<p class="muted">
      The API lists extra charges per subscription (<code>GET /api/v1/subscriptions/:id/invoices</code>), not for the
      whole organization: this page shows the extra charges of one page of subscriptions at a time, newest subscriptions
      first. A subscription's page lists all of its extra charges and has the form that creates one.
    </p>
    <${FilterForm}
      action=${path}
      label="Status"
      name="status"
      value=${v.status}
      options=${statusOptions(INVOICE_STATUSES)}
    />
    ${
      v.subscriptions
        ? html`<${Table}
              caption="Extra charges of these subscriptions"
              columns=${columns}
              rows=${v.rows}
              empty="No extra charges on these subscriptions."
            />
            <${Pager}
              path=${path}
              page=${v.page}
              maxPage=${v.subscriptions.pagination.max_page}
              query=${{ status: v.status }}
            />`
        : null
    }`;
}
