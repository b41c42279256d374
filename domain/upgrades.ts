import type { RecurrenceBilling } from './subscriptions.ts';
import { prorationAmount, settleProration, type PeriodSpan, type ProrationBehavior } from './proration.ts';
import type { SubscriptionStatus } from './subscriptions.ts';

/**
 * An upgrade through a checkout (`subscription_id` on a checkout that is not a renewal): the buyer
 * pays the new price's first period; once paid, the subscription moves to that price with a period
 * starting at the payment, and the unpaid-for rest of the period it leaves becomes a credit.
 */

/** The 422 code of a checkout that cannot upgrade its subscription. */
export const UPGRADE_REFUSED = 'upgrade_refused';

export interface UpgradedSubscription {
  status: SubscriptionStatus;
  recurrenceBilling: RecurrenceBilling;
  currency: string;
  customerId: string;
}

export interface UpgradeCheckout {
  priceType: string;
  currency: string;
  hasTrial: boolean;
  /** The customer the request names, if any. */
  customerId: string | null;
}

/** Why the checkout cannot upgrade the subscription; null when it can. */
export function upgradeRefusal(s: UpgradedSubscription, c: UpgradeCheckout): string | null {
  if (s.status === 'canceled') return 'The subscription has ended';
  // The gateway's recurrence bills such a subscription on its own plan
  // (see docs/decisions/0035-upgrades-through-a-checkout.md).
  if (s.recurrenceBilling === 'gateway')
    return 'A gateway-billed subscription changes plan by a price change, not through a checkout';
  // Its mandate's calendar was fixed when the payer authorized it; an upgrade's period would start at the
  // checkout's payment (docs/decisions/0096-pix-automatico.md, "Upgrades").
  if (s.recurrenceBilling === 'pix_automatico')
    return 'A Pix Automático subscription changes plan by a price change (its mandate charges the new price from the next period), not through a checkout';
  if (c.priceType !== 'recurring') return 'An upgrade sells a recurring price';
  if (c.currency.toLowerCase() !== s.currency.toLowerCase()) return 'The price is in another currency';
  if (c.hasTrial) return 'An upgrade starts a paid period: it takes no trial';
  if (c.customerId !== null && c.customerId !== s.customerId) return "The customer is not the subscription's";
  return null;
}

/**
 * The credit (zero or negative, for the subscription's balance) for the part of the current period
 * left at `at`, of the `paid` amount it was charged, settled as the organization settles plan
 * changes: `none` credits nothing. A trial was not paid for.
 */
export function upgradeCredit(
  behavior: ProrationBehavior,
  status: SubscriptionStatus,
  paid: number,
  period: PeriodSpan,
  at: Date,
): number {
  if (status === 'trialing' || paid <= 0) return 0;
  return settleProration(behavior, prorationAmount(paid, 0, period, at)).toBalance;
}
