import { SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';
import type { SubscriptionBody } from '../../api/schemas/subscriptions.ts';
import type { Locale } from '../locale.ts';
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
import { commerceMessages } from './messages-commerce.ts';
import { dashboardPaths } from './paths.ts';

/** The subscriptions' list, the columns other pages show them with, and a change's confirmation. */

/** A subscription's status, with its scheduled end when it is canceled at the period's end. */
export const subscriptionStatus = (locale: Locale, s: SubscriptionBody) =>
  s.cancel_at_period_end && !s.ended_at
    ? commerceMessages(locale).subscriptions.endsAtPeriodEnd(statusWord(s.status, locale))
    : statusWord(s.status, locale);

/** The subscriptions' columns; `withCustomer` false on a customer's own page. */
export function subscriptionColumns(c: CommerceContext, withCustomer = true): Column<SubscriptionBody>[] {
  const t = commerceMessages(c.locale).subscriptions;
  return [
    ...(withCustomer
      ? [
          {
            label: t.customer,
            cell: (s: SubscriptionBody) =>
              html`<${CustomerLink} organizationId=${c.organizationId} id=${s.customer_id} names=${c.names} />`,
          },
        ]
      : []),
    {
      label: t.product,
      cell: (s) =>
        html`<a href=${recordPath(c.organizationId, 'subscriptions', s.id)}
          >${c.names.products.get(s.product_id) ?? s.product_id}</a
        >`,
    },
    { label: t.amount, cell: (s) => amount(c.locale, s.amount, s.currency), numeric: true },
    { label: t.status, cell: (s) => subscriptionStatus(c.locale, s) },
    { label: t.periodEnd, cell: (s) => day(c.locale, s.current_period_end) },
    { label: t.started, cell: (s) => day(c.locale, s.created_at) },
  ];
}

export interface SubscriptionsView extends CommerceContext {
  list: ListPage<SubscriptionBody> | null;
  page: number;
  status?: string;
  customerId?: string;
}

export function subscriptionsContent(v: SubscriptionsView) {
  const t = commerceMessages(v.locale).subscriptions;
  const path = dashboardPaths.section(v.organizationId, 'subscriptions');
  const customer = v.customerId ? v.names.customers.get(v.customerId) : undefined;
  return html`${
      v.customerId
        ? html`<p>
            ${t.of}${' '}
            <${CustomerLink} organizationId=${v.organizationId} id=${v.customerId} names=${v.names} />${' · '}
            <a href=${path}>${t.all}</a>
          </p>`
        : null
    }
    <${FilterForm}
      locale=${v.locale}
      action=${path}
      label=${t.status}
      name="status"
      value=${v.status}
      options=${statusOptions(SUBSCRIPTION_STATUSES, v.locale)}
      keep=${{ customer_id: v.customerId }}
    />
    ${
      v.list
        ? html`<${Table}
              caption=${customer ? t.ofEmail(customer.email) : t.newestFirst}
              columns=${subscriptionColumns(v)}
              rows=${v.list.items}
              empty=${t.empty}
            />
            <${Pager}
              locale=${v.locale}
              path=${path}
              page=${v.page}
              maxPage=${v.list.pagination.max_page}
              query=${{ status: v.status, customer_id: v.customerId }}
            />`
        : null
    }`;
}

/**
 * The changes a subscription's page offers, each behind a confirmation: what the API's PATCH is sent
 * (their title, button and `done` words are in messages-commerce.ts).
 */
export const SUBSCRIPTION_ACTIONS = {
  cancel: { body: { cancel_at_period_end: true } },
  uncancel: { body: { cancel_at_period_end: false } },
  revoke: { body: { revoke: true } },
} as const;
export type SubscriptionAction = keyof typeof SUBSCRIPTION_ACTIONS;

/** What a change does, in words, before the member confirms it. */
function consequence(locale: Locale, action: SubscriptionAction, periodEnd: string): string {
  const t = commerceMessages(locale).subscriptions;
  if (action === 'cancel') return t.cancelConsequence(periodEnd);
  if (action === 'uncancel') return t.uncancelConsequence(periodEnd);
  return t.revokeConsequence;
}

export function subscriptionActionConfirmation(
  c: CommerceContext & { s: SubscriptionBody; action: SubscriptionAction },
) {
  const t = commerceMessages(c.locale).subscriptions;
  const path = recordPath(c.organizationId, 'subscriptions', c.s.id);
  const customer = c.names.customers.get(c.s.customer_id);
  const whose = t.whose(customer?.email ?? c.s.customer_id, amount(c.locale, c.s.amount, c.s.currency));
  return html`<p><strong>${c.names.products.get(c.s.product_id) ?? c.s.product_id}</strong>${whose}</p>
    <p>${consequence(c.locale, c.action, day(c.locale, c.s.current_period_end))}</p>
    <div class="actions">
      <${PostButton}
        action=${`${path}/${c.action}`}
        csrf=${c.csrf}
        label=${t.actions[c.action].button}
        danger=${c.action !== 'uncancel'}
      />
      <a href=${path}>${t.back}</a>
    </div>`;
}
