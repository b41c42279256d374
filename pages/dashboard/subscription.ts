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
  const path = recordPath(v.organizationId, 'subscriptions', v.s.id);
  return html`<${Summary} v=${v} />
    ${v.s.ended_at ? null : html`<${Changes} path=${path} s=${v.s} />`}
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Charges and retries</h2>
      <${Table}
        caption="Renewal charges and dunning retries, oldest first"
        columns=${chargeColumns(v)}
        rows=${v.s.charges}
        empty="No renewal charge yet: the first period was paid at checkout."
      />
    </section>
    <section aria-labelledby="invoices-title">
      <h2 id="invoices-title">Extra charges</h2>
      ${
        v.invoices
          ? html`<${Table}
              caption="Extra-charge invoices, newest first"
              columns=${invoiceColumns(v)}
              rows=${v.invoices.items}
              empty="No extra charges."
            />`
          : null
      }
      <h3>Create an extra charge</h3>
      <${InvoiceForm} action=${`${path}/invoices`} csrf=${v.csrf} values=${v.invoiceValues} />
    </section>
    <section aria-labelledby="sales-title">
      <h2 id="sales-title">Sales</h2>
      ${
        v.sales
          ? html`<${Table}
              caption="Sales of this subscription, newest first"
              columns=${saleColumns(v, { customer: false })}
              rows=${v.sales.items}
              empty="No sales."
            />`
          : null
      }
    </section>`;
}

function Summary({ v }: { v: SubscriptionView }) {
  const s = v.s;
  const discounted =
    s.subtotal_amount !== s.amount ? ` (${amount(v.locale, s.subtotal_amount, s.currency)} before discount)` : '';
  return html`<${Facts}
    label="Subscription"
    rows=${[
      ['Customer', html`<${CustomerLink} organizationId=${v.organizationId} id=${s.customer_id} names=${v.names} />`],
      ['Product', v.names.products.get(s.product_id) ?? s.product_id],
      ['Amount each period', `${amount(v.locale, s.amount, s.currency)}${discounted}`],
      ['Status', subscriptionStatus(s)],
      ['Current period', `${day(v.locale, s.current_period_start)} to ${day(v.locale, s.current_period_end)}`],
      ['Period number', String(s.period_number)],
      ['Trial end', day(v.locale, s.trial_end)],
      ['Canceled', moment(v.locale, s.canceled_at)],
      ['Ended', moment(v.locale, s.ended_at)],
      ['Renewals charged by', s.recurrence_billing === 'gateway' ? 'The gateway' : 'Our renewals'],
      ['Started', moment(v.locale, s.created_at)],
      [
        'Workflow',
        html`<a href=${s.workflow_url} data-testid="workflow-link">${s.workflow_id}</a>${' '}
          <span class="muted">in the Temporal UI</span>`,
      ],
    ]}
  />`;
}

/** The changes: cancel at the period's end or undo it, revoke now; each opens its confirmation. */
function Changes({ path, s }: { path: string; s: SubscriptionBody }) {
  return html`<section aria-labelledby="changes-title">
    <h2 id="changes-title">Changes</h2>
    <div class="actions">
      ${
        s.cancel_at_period_end
          ? html`<a class="button secondary" href=${`${path}/uncancel`}>Undo the cancellation</a>`
          : html`<a class="button secondary" href=${`${path}/cancel`}>Cancel at period end</a>`
      }
      <a class="button danger" href=${`${path}/revoke`}>Revoke now</a>
    </div>
  </section>`;
}

function chargeColumns(v: CommerceContext): Column<Charge>[] {
  return [
    { label: 'Tried', cell: (c) => moment(v.locale, c.attempted_at) },
    { label: 'Period', cell: (c) => String(c.period_number), numeric: true },
    { label: 'Try', cell: (c) => (c.try_number === 1 ? 'Renewal' : `Retry ${c.try_number - 1}`) },
    { label: 'Amount', cell: (c) => amount(v.locale, c.amount, c.currency), numeric: true },
    { label: 'Outcome', cell: (c) => statusWord(c.outcome) },
    { label: 'Decline reason', cell: (c) => declineText(c.decline_reason) || '—' },
    { label: 'Transaction', cell: (c) => (c.transaction_id ? html`<code>${c.transaction_id}</code>` : '—') },
  ];
}
