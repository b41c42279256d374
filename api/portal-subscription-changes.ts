import type { EntityManager } from '@mikro-orm/postgresql';
import { planChangePrice } from '../db/catalog/subscription-reads.ts';
import { subscriptionSettingsOf } from '../db/organization/subscription-reads.ts';
import { findOwnSubscription } from '../db/subscription/rows.ts';
import { DEFAULT_SUBSCRIPTION_SETTINGS } from '../domain/organizations.ts';
import { archivedProductRefusal, customerPlanRefusal } from '../domain/proration.ts';
import { ApiError, notFound, unprocessable } from '../use-cases/errors.ts';
import type { PortalCustomerScope } from '../use-cases/portal-reads.ts';
import { isUuid } from '../use-cases/schemas/common.ts';
import { presentPortalSubscription, type PortalSubscription } from './schemas/customer-portal.ts';
import { sendCardReplacement, sendPriceChange, sendSubscriptionChange } from './subscription-updates.ts';
import type { RouteDeps } from './route-deps.ts';

export type { PortalCustomerScope };

/** One change the customer asks for (the portal API's PATCH body, and the portal pages' forms). */
export type PortalSubscriptionChange = { cancel_at_period_end: boolean } | { price_id: string };

/** The organization has turned customer changes off (subscription_settings.allow_customer_updates). */
const customerUpdatesDisabled = () =>
  new ApiError(
    403,
    'customer_updates_disabled',
    'Customer updates are disabled',
    'The organization does not let customers change their subscriptions; ask the merchant',
  );

/** Whether the organization lets its customers change their subscriptions (read at each request). */
export async function customerUpdatesAllowed(em: EntityManager, organizationId: string): Promise<boolean> {
  const settings = { ...DEFAULT_SUBSCRIPTION_SETTINGS, ...(await subscriptionSettingsOf(em, organizationId)) };
  return settings.allow_customer_updates === true;
}

/**
 * A customer's change of its own subscription, made by the subscription's workflow as the merchant's
 * PATCH makes it. The portal API's PATCH and the portal's pages both come here, so the rules (own
 * subscriptions only, the organization's allow_customer_updates, no archived product) are written once.
 */
export async function changePortalSubscription(
  deps: RouteDeps,
  scope: PortalCustomerScope,
  id: string,
  change: PortalSubscriptionChange,
): Promise<PortalSubscription> {
  const { organizationId, customerId } = scope;
  const em = deps.orm.em.fork();
  // Ownership first: another customer's id is a 404 whatever the organization allows.
  const subscription = isUuid(id) ? await findOwnSubscription(em, { organizationId, customerId }, id) : null;
  if (!subscription) throw notFound('Subscription');
  if (!(await customerUpdatesAllowed(em, organizationId))) throw customerUpdatesDisabled();
  if ('price_id' in change) {
    const refusal = await customerPriceRefusal(em, subscription, change.price_id);
    if (refusal) throw unprocessable('plan_change_refused', refusal);
    return presentPortalSubscription(await sendPriceChange(deps.temporal, subscription.workflowId, change.price_id));
  }
  const action = change.cancel_at_period_end ? 'cancel_at_period_end' : 'uncancel';
  return presentPortalSubscription(await sendSubscriptionChange(deps.temporal, subscription.workflowId, action));
}

/**
 * The portal's own limits on a plan change (domain/proration.ts): a customer moves only to another
 * price of its subscription's product, still on sale. Whether the price is of this organization and
 * fits the subscription is the workflow's activity's to say, as for the merchant (an unknown price is
 * its 422 too).
 */
async function customerPriceRefusal(
  em: EntityManager,
  subscription: { organizationId: string; productId: string },
  priceId: string,
) {
  const found = await planChangePrice(em, subscription.organizationId, priceId);
  if (!found) return null;
  return (
    archivedProductRefusal({ productArchived: found.productArchived }) ?? customerPlanRefusal(subscription, found.price)
  );
}

/**
 * The customer's new card for its subscription's renewals: the token its browser's gateway script
 * minted (the card never reaches this server), kept by the subscription's workflow. The customer's own
 * payment data, so not behind allow_customer_updates (which governs changes of the subscription's terms).
 */
export async function replacePortalCard(
  deps: RouteDeps,
  scope: PortalCustomerScope,
  id: string,
  browserToken: string,
): Promise<PortalSubscription> {
  const subscription = isUuid(id) ? await findOwnSubscription(deps.orm.em.fork(), scope, id) : null;
  if (!subscription) throw notFound('Subscription');
  return presentPortalSubscription(await sendCardReplacement(deps.temporal, subscription.workflowId, browserToken));
}
