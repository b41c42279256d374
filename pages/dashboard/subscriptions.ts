import { SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';
import type { SubscriptionBody } from '../../api/schemas/subscriptions.ts';
import { html } from '../render.ts';
import {
  CustomerLink,
  FilterForm,
  recordPath,
  statusOptions,
  statusWord,
  type CommerceContext,
  type ListPage,
} from './commerce.ts';
import { amount, day, Pager, PostButton, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/** The subscriptions' list, the columns other pages show them with, and a change's confirmation. */

/** A subscription's status, with its scheduled end when it is canceled at the period's end. */
export const subscriptionStatus = (s: SubscriptionBody) =>
  s.cancel_at_period_end && !s.ended_at ? `${statusWord(s.status)}, ends at period end` : statusWord(s.status);

/** The subscriptions' columns; `withCustomer` false on a customer's own page. */
export function subscriptionColumns(c: CommerceContext, withCustomer = true): Column<SubscriptionBody>[] {
  return [
    ...(withCustomer
      ? [
          {
            label: 'Customer',
            cell: (s: SubscriptionBody) =>
              html`<${CustomerLink} organizationId=${c.organizationId} id=${s.customer_id} names=${c.names} />`,
          },
        ]
      : []),
    {
      label: 'Product',
      cell: (s) =>
        html`<a href=${recordPath(c.organizationId, 'subscriptions', s.id)}
          >${c.names.products.get(s.product_id) ?? s.product_id}</a
        >`,
    },
    { label: 'Amount', cell: (s) => amount(c.locale, s.amount, s.currency), numeric: true },
    { label: 'Status', cell: subscriptionStatus },
    { label: 'Current period end', cell: (s) => day(c.locale, s.current_period_end) },
    { label: 'Started', cell: (s) => day(c.locale, s.created_at) },
  ];
}

export interface SubscriptionsView extends CommerceContext {
  list: ListPage<SubscriptionBody> | null;
  page: number;
  status?: string;
  customerId?: string;
}

export function subscriptionsContent(v: SubscriptionsView) {
  const path = dashboardPaths.section(v.organizationId, 'subscriptions');
  const customer = v.customerId ? v.names.customers.get(v.customerId) : undefined;
  return html`${
      v.customerId
        ? html`<p>
            Subscriptions of${' '}
            <${CustomerLink} organizationId=${v.organizationId} id=${v.customerId} names=${v.names} />${' · '}
            <a href=${path}>All subscriptions</a>
          </p>`
        : null
    }
    <${FilterForm}
      action=${path}
      label="Status"
      name="status"
      value=${v.status}
      options=${statusOptions(SUBSCRIPTION_STATUSES)}
      keep=${{ customer_id: v.customerId }}
    />
    ${
      v.list
        ? html`<${Table}
              caption=${customer ? `Subscriptions of ${customer.email}` : 'Subscriptions, newest first'}
              columns=${subscriptionColumns(v)}
              rows=${v.list.items}
              empty="No subscriptions."
            />
            <${Pager}
              path=${path}
              page=${v.page}
              maxPage=${v.list.pagination.max_page}
              query=${{ status: v.status, customer_id: v.customerId }}
            />`
        : null
    }`;
}

/** The changes a subscription's page offers, each behind a confirmation: what the API's PATCH is sent. */
export const SUBSCRIPTION_ACTIONS = {
  cancel: {
    body: { cancel_at_period_end: true },
    title: 'Cancel at the end of the period?',
    button: 'Cancel at period end',
    done: 'The subscription will end at the end of its period.',
  },
  uncancel: {
    body: { cancel_at_period_end: false },
    title: 'Keep the subscription?',
    button: 'Keep the subscription',
    done: 'The subscription goes on; its cancellation is undone.',
  },
  revoke: {
    body: { revoke: true },
    title: 'Revoke the subscription now?',
    button: 'Revoke now',
    done: 'The subscription is revoked.',
  },
} as const;
export type SubscriptionAction = keyof typeof SUBSCRIPTION_ACTIONS;

/** What a change does, in words, before the member confirms it. */
function consequence(action: SubscriptionAction, periodEnd: string): string {
  if (action === 'cancel') {
    return `It goes on until ${periodEnd} and is not charged after that. You can undo this until then.`;
  }
  if (action === 'uncancel') return `It renews on ${periodEnd} as before, and goes on being charged every period.`;
  return 'It ends now: no renewal or dunning retry is charged again, and the customer loses access. This cannot be undone.';
}

export function subscriptionActionConfirmation(
  c: CommerceContext & { s: SubscriptionBody; action: SubscriptionAction },
) {
  const path = recordPath(c.organizationId, 'subscriptions', c.s.id);
  const customer = c.names.customers.get(c.s.customer_id);
  const whose = ` of ${customer?.email ?? c.s.customer_id}, ${amount(c.locale, c.s.amount, c.s.currency)} each period.`;
  return html`<p><strong>${c.names.products.get(c.s.product_id) ?? c.s.product_id}</strong>${whose}</p>
    <p>${consequence(c.action, day(c.locale, c.s.current_period_end))}</p>
    <div class="actions">
      <${PostButton}
        action=${`${path}/${c.action}`}
        csrf=${c.csrf}
        label=${SUBSCRIPTION_ACTIONS[c.action].button}
        danger=${c.action !== 'uncancel'}
      />
      <a href=${path}>Back to the subscription</a>
    </div>`;
}
