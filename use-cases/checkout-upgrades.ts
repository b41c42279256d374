import type { EntityManager } from '@mikro-orm/postgresql';
import { findOwnSubscription } from '../db/subscription/rows.ts';
import { UPGRADE_REFUSED, upgradeRefusal } from '../domain/upgrades.ts';
import { unprocessable } from './errors.ts';
import type { CreateCheckoutInput } from './schemas/checkouts.ts';

/**
 * A checkout that names `subscription_id` without being a renewal upgrades that subscription
 * (domain/upgrades.ts): checked here at creation, and again when its payment is recorded. The
 * checkout is the subscription customer's and bills as the subscription does (manual renewals).
 */
export interface CheckoutUpgrade {
  customerId: string;
  recurrenceBilling: 'manual';
}

export async function upgradedSubscription(
  em: EntityManager,
  input: CreateCheckoutInput,
  price: { type: string; currency: string },
  organizationId: string,
): Promise<CheckoutUpgrade> {
  const id = input.subscription_id!;
  const s = await findOwnSubscription(em, { organizationId }, id);
  if (!s) throw unprocessable('subscription_not_found', 'Subscription not found', `subscription_id ${id}`);
  const refusal = upgradeRefusal(s, {
    priceType: price.type,
    currency: price.currency,
    hasTrial: input.trial_interval !== undefined,
    customerId: input.customer_id ?? null,
  });
  if (refusal) throw unprocessable(UPGRADE_REFUSED, 'The subscription cannot be upgraded by this checkout', refusal);
  return { customerId: s.customerId, recurrenceBilling: 'manual' };
}
