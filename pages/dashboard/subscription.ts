import type { z } from 'zod';
import type { InvoiceBody } from '../../api/schemas/invoices.ts';
import type { SaleBody } from '../../use-cases/schemas/sales.ts';
import type { subscriptionChargeSchema, SubscriptionBody } from '../../api/schemas/subscriptions.ts';
import { html } from '../render.ts';
import {
  CustomerLink,
  declineText,
  Facts,
  recordPath,
  statusWord,
  type CommerceContext,
  type ListPage,
} from './commerce.ts';
import { amount, day, moment, Table, type Column } from './components.ts';
import { commerceMessages } from './messages-commerce.ts';
import { invoiceColumns, InvoiceForm, type InvoiceFormValues } from './invoices.ts';
import { saleColumns } from './sales.ts';
import { subscriptionStatus } from './subscriptions.ts';

/** One subscription: its facts, its changes, its renewal and dunning timeline, extra charges and sales. */

type Charge = z.infer<typeof subscriptionChargeSchema>;

export interface SubscriptionView extends CommerceContext {
  s: SubscriptionBody & { charges: Charge[] };
  invoices: ListPage<InvoiceBody> | null;
  sales: ListPage<SaleBody> | null;
  invoiceValues: InvoiceFormValues;
}

export function subscriptionContent(v: SubscriptionView) {
  const t = commerceMessages(v.locale).subscription;
  const path = recordPath(v.organizationId, 'subscriptions', v.s.id);
  return html`<${Summary} v=${v} />
    ${v.s.ended_at ? null : html`<${Changes} v=${v} path=${path} />`}
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">${t.timeline}</h2>
      <${Table} caption=${t.timelineCaption} columns=${chargeColumns(v)} rows=${v.s.charges} empty=${t.timelineEmpty} />
    </section>
    <section aria-labelledby="invoices-title">
      <h2 id="invoices-title">${t.invoices}</h2>
      ${
        v.invoices
          ? html`<${Table}
              caption=${t.invoicesCaption}
              columns=${invoiceColumns(v)}
              rows=${v.invoices.items}
              empty=${t.invoicesEmpty}
            />`
          : null
      }
      <h3>${t.createInvoice}</h3>
      <${InvoiceForm} locale=${v.locale} action=${`${path}/invoices`} csrf=${v.csrf} values=${v.invoiceValues} />
    </section>
    <section aria-labelledby="sales-title">
      <h2 id="sales-title">${t.sales}</h2>
      ${
        v.sales
          ? html`<${Table}
              caption=${t.salesCaption}
              columns=${saleColumns(v, { customer: false })}
              rows=${v.sales.items}
              empty=${t.salesEmpty}
            />`
          : null
      }
    </section>`;
}

function Summary({ v }: { v: SubscriptionView }) {
  const s = v.s;
  const t = commerceMessages(v.locale);
  const discounted =
    s.subtotal_amount !== s.amount
      ? t.subscription.beforeDiscount(amount(v.locale, s.subtotal_amount, s.currency))
      : '';
  const period = t.subscription.periodRange(day(v.locale, s.current_period_start), day(v.locale, s.current_period_end));
  return html`<${Facts}
    label=${t.subscription.label}
    rows=${[
      [
        t.subscriptions.customer,
        html`<${CustomerLink} organizationId=${v.organizationId} id=${s.customer_id} names=${v.names} />`,
      ],
      [t.subscriptions.product, v.names.products.get(s.product_id) ?? s.product_id],
      [t.subscription.amountEachPeriod, `${amount(v.locale, s.amount, s.currency)}${discounted}`],
      [t.subscriptions.status, subscriptionStatus(v.locale, s)],
      [t.subscription.currentPeriod, period],
      [t.subscription.periodNumber, String(s.period_number)],
      [t.subscription.trialEnd, day(v.locale, s.trial_end)],
      [t.subscription.canceled, moment(v.locale, s.canceled_at)],
      [t.subscription.ended, moment(v.locale, s.ended_at)],
      [t.subscription.renewalsBy, s.recurrence_billing === 'gateway' ? t.subscription.byGateway : t.subscription.byUs],
      [t.subscriptions.started, moment(v.locale, s.created_at)],
      [
        t.subscription.workflow,
        html`<a href=${s.workflow_url} data-testid="workflow-link">${s.workflow_id}</a>${' '}
          <span class="muted">${t.subscription.inTemporal}</span>`,
      ],
    ]}
  />`;
}

/** The changes: cancel at the period's end or undo it, revoke now; each opens its confirmation. */
function Changes({ v, path }: { v: SubscriptionView; path: string }) {
  const t = commerceMessages(v.locale).subscription;
  return html`<section aria-labelledby="changes-title">
    <h2 id="changes-title">${t.changes}</h2>
    <div class="actions">
      ${
        v.s.cancel_at_period_end
          ? html`<a class="button secondary" href=${`${path}/uncancel`}>${t.undoCancel}</a>`
          : html`<a class="button secondary" href=${`${path}/cancel`}>${t.cancel}</a>`
      }
      <a class="button danger" href=${`${path}/revoke`}>${t.revoke}</a>
    </div>
  </section>`;
}

function chargeColumns(v: CommerceContext): Column<Charge>[] {
  const t = commerceMessages(v.locale);
  return [
    { label: t.subscription.tried, cell: (c) => moment(v.locale, c.attempted_at) },
    { label: t.subscription.period, cell: (c) => String(c.period_number), numeric: true },
    {
      label: t.subscription.try,
      cell: (c) => (c.try_number === 1 ? t.subscription.renewal : t.subscription.retry(c.try_number - 1)),
    },
    { label: t.subscriptions.amount, cell: (c) => amount(v.locale, c.amount, c.currency), numeric: true },
    { label: t.subscription.outcome, cell: (c) => statusWord(c.outcome, v.locale) },
    { label: t.subscription.declineReason, cell: (c) => declineText(c.decline_reason, v.locale) || '—' },
    {
      label: t.subscription.transaction,
      cell: (c) => (c.transaction_id ? html`<code>${c.transaction_id}</code>` : '—'),
    },
  ];
}
