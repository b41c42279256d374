import { INVOICE_STATUSES } from '../../domain/invoices.ts';
import type { InvoiceBody } from '../../api/schemas/invoices.ts';
import type { SubscriptionBody } from '../../api/schemas/subscriptions.ts';
import type { Locale } from '../locale.ts';
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
import { commerceMessages } from './messages-commerce.ts';
import { dashboardPaths } from './paths.ts';

/** Extra charges: a subscription's invoices, the form that creates one, and the section that lists them. */

/** An extra charge's columns; `full` false leaves out its last day to pay and its workflow (the section's wide table). */
export function invoiceColumns(c: CommerceContext, full = true): Column<InvoiceBody>[] {
  const t = commerceMessages(c.locale).invoices;
  const status = (i: InvoiceBody) => statusWord(i.status, c.locale);
  return [
    { label: t.number, cell: (i) => i.number },
    { label: t.description, cell: (i) => i.description ?? '—' },
    { label: t.amount, cell: (i) => amount(c.locale, i.amount, i.currency), numeric: true },
    { label: t.dueDate, cell: (i) => day(c.locale, i.due_date) },
    ...(full ? [{ label: t.lastDay, cell: (i: InvoiceBody) => day(c.locale, i.expiration_date) }] : []),
    {
      label: t.status,
      cell: (i) => (i.failure_reason ? `${status(i)}: ${declineText(i.failure_reason, c.locale)}` : status(i)),
    },
    { label: t.paid, cell: (i) => moment(c.locale, i.paid_at) },
    ...(full
      ? [{ label: t.workflow, cell: (i: InvoiceBody) => html`<a href=${i.workflow_url}>${i.workflow_id}</a>` }]
      : []),
  ];
}

export interface InvoiceFormValues {
  amount?: string;
  description?: string;
  due_date?: string;
}

/** The extra charge's form: amount in reais, what it is for, the due date. */
export function InvoiceForm({
  locale,
  action,
  csrf,
  values,
}: {
  locale: Locale;
  action: string;
  csrf: string;
  values: InvoiceFormValues;
}) {
  const t = commerceMessages(locale).invoices;
  return html`<${PostForm} action=${action} csrf=${csrf} label=${t.formLabel}>
    <${Field}
      label=${t.amountField}
      name="amount"
      value=${values.amount}
      required
      inputmode="decimal"
      hint=${t.amountHint}
    />
    <${Field} label=${t.description} name="description" value=${values.description} maxlength="255" />
    <${Field} label=${t.dueDate} name="due_date" type="date" value=${values.due_date} required />
    <button type="submit" class="button">${t.create}</button>
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
  const t = commerceMessages(v.locale).invoices;
  const path = dashboardPaths.section(v.organizationId, 'invoices');
  const columns: Column<SubscriptionInvoice>[] = [
    {
      label: t.subscription,
      cell: ({ subscription: s }) =>
        html`<a href=${recordPath(v.organizationId, 'subscriptions', s.id)}
          >${v.names.products.get(s.product_id) ?? s.product_id}</a
        >`,
    },
    {
      label: t.customer,
      cell: ({ subscription: s }) =>
        html`<${CustomerLink} organizationId=${v.organizationId} id=${s.customer_id} names=${v.names} />`,
    },
    // The section's table is wide already: the workflow and last day are on the subscription's page.
    ...invoiceColumns(v, false).map((col) => ({
      ...col,
      cell: (row: SubscriptionInvoice) => col.cell(row.invoice),
    })),
  ];
  return html`<p class="muted">${t.note(html`<code>GET /api/v1/subscriptions/:id/invoices</code>`)}</p>
    <${FilterForm}
      locale=${v.locale}
      action=${path}
      label=${t.status}
      name="status"
      value=${v.status}
      options=${statusOptions(INVOICE_STATUSES, v.locale)}
    />
    ${
      v.subscriptions
        ? html`<${Table} caption=${t.caption} columns=${columns} rows=${v.rows} empty=${t.empty} />
            <${Pager}
              locale=${v.locale}
              path=${path}
              page=${v.page}
              maxPage=${v.subscriptions.pagination.max_page}
              query=${{ status: v.status }}
            />`
        : null
    }`;
}
