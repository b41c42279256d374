import type { z } from 'zod';
import type { SaleBody } from '../../use-cases/schemas/sales.ts';
import type { refundSchema } from '../../api/schemas/sales.ts';
import { html } from '../render.ts';
import {
  CustomerLink,
  Facts,
  FilterForm,
  recordPath,
  statusOptions,
  statusWord,
  type CommerceContext,
  type ListPage,
} from './commerce.ts';
import { amount, Field, moment, Pager, PostButton, Table, type Column } from './components.ts';
import { dashboardMessages } from './messages.ts';
import { dashboardPaths } from './paths.ts';

/** Sales and refunds: the lists, a sale with its refunds, and a refund's form and confirmation. */

export type RefundBody = z.infer<typeof refundSchema>;
const SALE_STATUSES = ['paid', 'partially_refunded', 'refunded'] as const;
const METHODS: Record<string, string> = { credit_card: 'Card', pix: 'Pix', boleto: 'Boleto' };

export function saleColumns(c: CommerceContext, show: { customer?: boolean } = {}): Column<SaleBody>[] {
  return [
    {
      label: 'Date',
      cell: (s) => html`<a href=${recordPath(c.organizationId, 'sales', s.id)}>${moment(c.locale, s.created_at)}</a>`,
    },
    ...(show.customer === false
      ? []
      : [
          {
            label: 'Customer',
            cell: (s: SaleBody) =>
              html`<${CustomerLink}
                organizationId=${c.organizationId}
                id=${s.customer.id}
                email=${s.customer.email}
              />`,
          },
        ]),
    { label: 'Product', cell: (s) => s.product.name },
    { label: 'Amount', cell: (s) => amount(c.locale, s.amount, s.currency), numeric: true },
    { label: 'Method', cell: (s) => METHODS[s.payment_method] ?? s.payment_method },
    { label: 'Installments', cell: (s) => String(s.installments), numeric: true },
    { label: 'Status', cell: (s) => statusWord(s.status) },
    { label: 'Refunded', cell: (s) => amount(c.locale, s.refunded_amount, s.currency), numeric: true },
  ];
}

export interface SalesView extends CommerceContext {
  list: ListPage<SaleBody> | null;
  page: number;
  status?: string;
  customerId?: string;
  subscriptionId?: string;
}

export function salesContent(v: SalesView) {
  const path = dashboardPaths.section(v.organizationId, 'sales');
  const keep = { customer_id: v.customerId, subscription_id: v.subscriptionId };
  return html`${
      v.customerId || v.subscriptionId
        ? html`<p>Filtered by ${v.customerId ? 'customer' : 'subscription'} · <a href=${path}>All sales</a></p>`
        : null
    }
    <${FilterForm}
      action=${path}
      label="Status"
      name="status"
      value=${v.status}
      options=${statusOptions(SALE_STATUSES)}
      keep=${keep}
    />
    ${
      v.list
        ? html`<${Table}
              caption="Sales, newest first"
              columns=${saleColumns(v)}
              rows=${v.list.items}
              empty="No sales."
            />
            <${Pager}
              path=${path}
              page=${v.page}
              maxPage=${v.list.pagination.max_page}
              query=${{ status: v.status, ...keep }}
            />`
        : null
    }`;
}

export function refundColumns(c: CommerceContext, withSale = true): Column<RefundBody>[] {
  return [
    { label: 'Date', cell: (r) => moment(c.locale, r.created_at) },
    ...(withSale
      ? [
          {
            label: 'Sale',
            // A late payment of a checkout that ended without a sale is refunded without one (decision 0095).
            cell: (r: RefundBody) =>
              r.sale_id ? html`<a href=${recordPath(c.organizationId, 'sales', r.sale_id)}>View sale</a>` : 'No sale',
          },
        ]
      : []),
    { label: 'Amount', cell: (r) => amount(c.locale, r.amount, r.currency), numeric: true },
    { label: 'Reason', cell: (r) => r.reason ?? '—' },
    { label: 'Status', cell: (r) => statusWord(r.status) },
  ];
}

export function refundsContent(v: CommerceContext & { list: ListPage<RefundBody> | null; page: number }) {
  const path = dashboardPaths.section(v.organizationId, 'refunds');
  return v.list
    ? html`<${Table}
          caption="Refunds, newest first"
          columns=${refundColumns(v)}
          rows=${v.list.items}
          empty="No refunds."
        />
        <${Pager} path=${path} page=${v.page} maxPage=${v.list.pagination.max_page} />`
    : null;
}

type DisputeBody = SaleBody['disputes'][number];

/** A sale's disputes (chargebacks, decision 0072): when opened, for how much, how it ended and what it took. */
function disputeColumns(c: CommerceContext, currency: string): Column<DisputeBody>[] {
  return [
    { label: 'Opened', cell: (d) => moment(c.locale, d.opened_at) },
    { label: 'Disputed', cell: (d) => amount(c.locale, d.amount, currency), numeric: true },
    { label: 'Status', cell: (d) => statusWord(d.status) },
    { label: 'Taken back', cell: (d) => amount(c.locale, d.lost_amount, currency), numeric: true },
    { label: 'Closed', cell: (d) => (d.closed_at ? moment(c.locale, d.closed_at) : '—') },
    { label: 'Gateway id', cell: (d) => d.gateway_dispute_id },
  ];
}

export interface RefundFormValues {
  amount?: string;
  reason?: string;
}

export interface SaleView extends CommerceContext {
  sale: SaleBody;
  refunds: ListPage<RefundBody> | null;
  values: RefundFormValues;
  /** What can still be refunded, in cents (refund-balance.ts). */
  refundable: number;
}

export function saleContent(v: SaleView) {
  const s = v.sale;
  const path = recordPath(v.organizationId, 'sales', s.id);
  const m = (cents: number) => amount(v.locale, cents, s.currency);
  return html`<${Facts}
      label="Sale"
      rows=${[
        [
          'Customer',
          html`<${CustomerLink} organizationId=${v.organizationId} id=${s.customer.id} email=${s.customer.email} />`,
        ],
        ['Product', s.product.name],
        ['Amount', `${m(s.amount)}${s.discount_amount ? ` (${m(s.discount_amount)} discount)` : ''}`],
        ['Paid', `${m(s.total_amount)} in ${s.installments} × ${m(s.installment_amount)}`],
        ['Method', METHODS[s.payment_method] ?? s.payment_method],
        ['Status', statusWord(s.status)],
        ['Refunded', m(s.refunded_amount)],
        ['Charged back', m(s.charged_back_amount)],
        ['Date', moment(v.locale, s.created_at)],
        [
          'Subscription',
          s.subscription_id
            ? html`<a href=${recordPath(v.organizationId, 'subscriptions', s.subscription_id)}>View subscription</a>`
            : '—',
        ],
      ]}
    />
    ${
      s.disputes.length > 0
        ? html`<section aria-labelledby="disputes-title">
            <h2 id="disputes-title">Disputes</h2>
            <${Table}
              caption="Disputes (chargebacks) of this sale"
              columns=${disputeColumns(v, s.currency)}
              rows=${s.disputes}
              empty="No disputes."
            />
          </section>`
        : null
    }
    <section aria-labelledby="refunds-title">
      <h2 id="refunds-title">Refunds</h2>
      ${
        v.refunds
          ? html`<${Table}
              caption="Refunds of this sale"
              columns=${refundColumns(v, false)}
              rows=${v.refunds.items}
              empty="No refunds."
            />`
          : null
      }
      <h3>Refund</h3>
      <p data-testid="refundable">${dashboardMessages(v.locale).refund.refundable(m(v.refundable))}</p>
      <form method="get" action=${`${path}/refund`} class="dash-form" aria-label="Refund this sale">
        <${Field}
          label=${dashboardMessages(v.locale).refund.amount}
          name="amount"
          value=${v.values.amount}
          inputmode="decimal"
          hint=${dashboardMessages(v.locale).refund.amountHint}
        />
        <${Field} label="Reason (optional)" name="reason" value=${v.values.reason} maxlength="500" />
        <button type="submit" class="button">Review the refund</button>
      </form>
    </section>`;
}

/** The refund's confirmation: how much goes back, and the button that sends it. */
export function refundConfirmation(
  v: CommerceContext & { sale: SaleBody; cents: number | null; values: RefundFormValues },
) {
  const s = v.sale;
  const path = recordPath(v.organizationId, 'sales', s.id);
  const m = (cents: number) => amount(v.locale, cents, s.currency);
  const of = ` of ${s.customer.email}'s purchase of ${s.product.name} (${m(s.total_amount)} paid, ${m(s.refunded_amount)} refunded so far)?`;
  return html`<p>
      Refund${' '}
      <strong data-testid="refund-amount">${v.cents === null ? 'all that is still refundable' : m(v.cents)}</strong
      >${of}
    </p>
    ${v.values.reason ? html`<p>Reason: ${v.values.reason}</p>` : null}
    <p>
      ${`The money goes back by the sale's payment method (${METHODS[s.payment_method] ?? s.payment_method}). This cannot be undone.`}
    </p>
    <div class="actions">
      <${PostButton}
        action=${`${path}/refund`}
        csrf=${v.csrf}
        label="Refund"
        danger
        fields=${{ amount: v.values.amount ?? '', reason: v.values.reason ?? '' }}
      />
      <a href=${path}>Back to the sale</a>
    </div>`;
}
