import type { z } from 'zod';
import type { SaleBody } from '../../use-cases/schemas/sales.ts';
import type { refundSchema } from '../../api/schemas/sales.ts';
import { html } from '../render.ts';
import { CustomerLink, Facts, recordPath, type CommerceContext, type ListPage } from './commerce.ts';
import { amount, Field, moment, Pager, PostButton, Select, Table, type Column } from './components.ts';
import { dashboardMessages } from './messages.ts';
import { methodWord, recordMessages, recordStatus } from './messages-records.ts';
import { dashboardPaths } from './paths.ts';
import { ExportLink } from './record-exports.ts';

/** Sales and refunds: the lists, a sale with its refunds, and a refund's form and confirmation. */

export type RefundBody = z.infer<typeof refundSchema>;
const SALE_STATUSES = ['paid', 'partially_refunded', 'refunded'] as const;

export function saleColumns(c: CommerceContext, show: { customer?: boolean } = {}): Column<SaleBody>[] {
  const t = recordMessages(c.locale).sales.columns;
  return [
    {
      label: t.date,
      cell: (s) => html`<a href=${recordPath(c.organizationId, 'sales', s.id)}>${moment(c.locale, s.created_at)}</a>`,
    },
    ...(show.customer === false
      ? []
      : [
          {
            label: t.customer,
            cell: (s: SaleBody) =>
              html`<${CustomerLink}
                organizationId=${c.organizationId}
                id=${s.customer.id}
                email=${s.customer.email}
              />`,
          },
        ]),
    { label: t.product, cell: (s) => s.product.name },
    { label: t.amount, cell: (s) => amount(c.locale, s.amount, s.currency), numeric: true },
    { label: t.method, cell: (s) => methodWord(c.locale, s.payment_method) },
    { label: t.installments, cell: (s) => String(s.installments), numeric: true },
    { label: t.status, cell: (s) => recordStatus(c.locale, s.status) },
    { label: t.refunded, cell: (s) => amount(c.locale, s.refunded_amount, s.currency), numeric: true },
  ];
}

export interface SalesView extends CommerceContext {
  list: ListPage<SaleBody> | null;
  page: number;
  status?: string;
  customerId?: string;
  subscriptionId?: string;
  /** Part of the customer's e-mail or name (GET /sales `query`). */
  search?: string;
}

/** The list's filters as query parameters, kept by the pager, the search and the export. */
export const salesFilters = (v: Pick<SalesView, 'status' | 'customerId' | 'subscriptionId' | 'search'>) => ({
  status: v.status,
  customer_id: v.customerId,
  subscription_id: v.subscriptionId,
  query: v.search,
});

export function salesContent(v: SalesView) {
  const path = dashboardPaths.section(v.organizationId, 'sales');
  const t = recordMessages(v.locale);
  const filters = salesFilters(v);
  const keep = { customer_id: v.customerId, subscription_id: v.subscriptionId };
  return html`${
      v.customerId || v.subscriptionId
        ? html`<p>
            ${t.sales.filteredBy(v.customerId ? 'customer' : 'subscription')} · <a href=${path}>${t.sales.all}</a>
          </p>`
        : null
    }
    <form method="get" action=${path} class="filter-form" role="search" aria-label=${t.sales.searchLabel}>
      ${Object.entries(keep).map(([k, value]) => (value ? html`<input type="hidden" name=${k} value=${value} />` : null))}
      <${Field} label=${t.search.label} name="query" type="search" value=${v.search} maxlength="256" />
      <${Select}
        label=${t.search.status}
        name="status"
        value=${v.status ?? ''}
        options=${[['', t.search.all], ...SALE_STATUSES.map((s) => [s, recordStatus(v.locale, s)] as const)]}
      />
      <button type="submit" class="button secondary">${t.search.submit}</button>
    </form>
    ${
      v.list
        ? html`<${ExportLink}
              path=${`${path}/export.csv`}
              query=${filters}
              size=${v.list.pagination.total_count}
              locale=${v.locale}
            />
            <${Table}
              caption=${v.search ? t.sales.matching(v.search) : t.sales.caption}
              columns=${saleColumns(v)}
              rows=${v.list.items}
              empty=${v.search ? t.sales.noMatch : t.sales.empty}
            />
            <${Pager}
              path=${path}
              page=${v.page}
              maxPage=${v.list.pagination.max_page}
              query=${filters}
              locale=${v.locale}
            />`
        : null
    }`;
}

export function refundColumns(c: CommerceContext, withSale = true): Column<RefundBody>[] {
  const t = recordMessages(c.locale);
  return [
    { label: t.sales.columns.date, cell: (r) => moment(c.locale, r.created_at) },
    ...(withSale
      ? [
          {
            label: t.refunds.columns.sale,
            // A late payment of a checkout that ended without a sale is refunded without one (decision 0095).
            cell: (r: RefundBody) =>
              r.sale_id
                ? html`<a href=${recordPath(c.organizationId, 'sales', r.sale_id)}>${t.refunds.columns.viewSale}</a>`
                : t.refunds.columns.noSale,
          },
        ]
      : []),
    { label: t.sales.columns.amount, cell: (r) => amount(c.locale, r.amount, r.currency), numeric: true },
    { label: t.refunds.columns.reason, cell: (r) => r.reason ?? '—' },
    { label: t.sales.columns.status, cell: (r) => recordStatus(c.locale, r.status) },
  ];
}

export function refundsContent(v: CommerceContext & { list: ListPage<RefundBody> | null; page: number }) {
  const path = dashboardPaths.section(v.organizationId, 'refunds');
  const t = recordMessages(v.locale).refunds;
  return v.list
    ? html`<${Table} caption=${t.caption} columns=${refundColumns(v)} rows=${v.list.items} empty=${t.empty} />
        <${Pager} path=${path} page=${v.page} maxPage=${v.list.pagination.max_page} locale=${v.locale} />`
    : null;
}

type DisputeBody = SaleBody['disputes'][number];

/** A sale's disputes (chargebacks, decision 0072): when opened, for how much, how it ended and what it took. */
function disputeColumns(c: CommerceContext, currency: string): Column<DisputeBody>[] {
  const t = recordMessages(c.locale).sale.disputeColumns;
  return [
    { label: t.opened, cell: (d) => moment(c.locale, d.opened_at) },
    { label: t.disputed, cell: (d) => amount(c.locale, d.amount, currency), numeric: true },
    { label: recordMessages(c.locale).sales.columns.status, cell: (d) => recordStatus(c.locale, d.status) },
    { label: t.takenBack, cell: (d) => amount(c.locale, d.lost_amount, currency), numeric: true },
    { label: t.closed, cell: (d) => (d.closed_at ? moment(c.locale, d.closed_at) : '—') },
    { label: t.gatewayId, cell: (d) => d.gateway_dispute_id },
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
  const t = recordMessages(v.locale);
  const column = t.sales.columns;
  const refund = dashboardMessages(v.locale).refund;
  return html`<${Facts}
      label=${t.sale.label}
      rows=${[
        [
          column.customer,
          html`<${CustomerLink} organizationId=${v.organizationId} id=${s.customer.id} email=${s.customer.email} />`,
        ],
        [column.product, s.product.name],
        [column.amount, `${m(s.amount)}${s.discount_amount ? ` ${t.sale.discount(m(s.discount_amount))}` : ''}`],
        [t.sale.paid, t.sale.paidIn(m(s.total_amount), s.installments, m(s.installment_amount))],
        [column.method, methodWord(v.locale, s.payment_method)],
        [column.status, recordStatus(v.locale, s.status)],
        [column.refunded, m(s.refunded_amount)],
        [t.sale.chargedBack, m(s.charged_back_amount)],
        [column.date, moment(v.locale, s.created_at)],
        [
          t.sale.subscription,
          s.subscription_id
            ? html`<a href=${recordPath(v.organizationId, 'subscriptions', s.subscription_id)}
                >${t.sale.viewSubscription}</a
              >`
            : '—',
        ],
      ]}
    />
    ${
      s.disputes.length > 0
        ? html`<section aria-labelledby="disputes-title">
            <h2 id="disputes-title">${t.sale.disputes}</h2>
            <${Table}
              caption=${t.sale.disputesCaption}
              columns=${disputeColumns(v, s.currency)}
              rows=${s.disputes}
              empty=${t.sale.noDisputes}
            />
          </section>`
        : null
    }
    <section aria-labelledby="refunds-title">
      <h2 id="refunds-title">${t.sale.refunds}</h2>
      ${
        v.refunds
          ? html`<${Table}
              caption=${t.sale.refundsCaption}
              columns=${refundColumns(v, false)}
              rows=${v.refunds.items}
              empty=${t.refunds.empty}
            />`
          : null
      }
      <h3>${t.sale.refund}</h3>
      <p data-testid="refundable">${refund.refundable(m(v.refundable))}</p>
      <form method="get" action=${`${path}/refund`} class="dash-form" aria-label=${t.sale.refundForm}>
        <${Field}
          label=${refund.amount}
          name="amount"
          value=${v.values.amount}
          inputmode="decimal"
          hint=${refund.amountHint}
        />
        <${Field} label=${t.sale.reason} name="reason" value=${v.values.reason} maxlength="500" />
        <button type="submit" class="button">${t.sale.review}</button>
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
  const t = recordMessages(v.locale);
  const of = t.confirm.question(s.customer.email, s.product.name, m(s.total_amount), m(s.refunded_amount));
  return html`<p>
      ${t.sale.refund}${' '}
      <strong data-testid="refund-amount">${v.cents === null ? t.confirm.everything : m(v.cents)}</strong>${of}
    </p>
    ${v.values.reason ? html`<p>${t.confirm.reason(v.values.reason)}</p>` : null}
    <p>${t.confirm.goesBack(methodWord(v.locale, s.payment_method))}</p>
    <div class="actions">
      <${PostButton}
        action=${`${path}/refund`}
        csrf=${v.csrf}
        label=${t.sale.refund}
        danger
        fields=${{ amount: v.values.amount ?? '', reason: v.values.reason ?? '' }}
      />
      <a href=${path}>${t.confirm.back}</a>
    </div>`;
}
