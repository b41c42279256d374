import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApiError } from '../use-cases/errors.ts';
import { openRenewalCheckout } from '../use-cases/renewal-checkouts.ts';
import type { Config } from '../config/env.ts';
import { findCheckoutRow } from '../db/checkout/records.ts';
import { findSubscription } from '../db/subscription/rows.ts';
import type { Orm } from '../db/orm.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import type { SubscriptionActivities } from '../contracts/subscription.ts';

/**
 * The renewal checkout a subscription's workflow opens when a period ends with no card it can charge
 * (pix, boleto, or a refused card): the same checkout the merchant's `manual-renewal-checkout` opens
 * (use-cases/renewal-checkouts.ts), so there is never a second payable checkout for a period. Its sale
 * enters the period and signals the workflow.
 */
export const RENEWAL_CHECKOUT_REFUSED = 'RenewalCheckoutRefused';

export function createRenewalCheckoutActivities(deps: {
  orm: Orm;
  gateway: PaymentGateway;
  temporal?: Client;
  config?: Config;
}) {
  return {
    /** The payable checkout of the period (opened now or already open); null when the period is paid. */
    async openRenewalCheckout(input: {
      subscriptionId: string;
      period: number;
      /** Until when it can be paid: the period's dunning deadline. */
      expiresAt: string;
    }): Promise<{ checkoutId: string } | null> {
      const { temporal, config } = deps;
      if (!temporal || !config) {
        throw ApplicationFailure.nonRetryable('This worker cannot open checkouts', RENEWAL_CHECKOUT_REFUSED);
      }
      const em = deps.orm.em.fork();
      const subscription = await findSubscription(em, input.subscriptionId);
      if (!subscription) {
        throw ApplicationFailure.nonRetryable(`Subscription ${input.subscriptionId} not found`, 'SubscriptionNotFound');
      }
      if (subscription.periodNumber >= input.period) return null;
      const original = subscription.checkoutId ? await findCheckoutRow(em, subscription.checkoutId) : null;
      if (!original) {
        throw ApplicationFailure.nonRetryable('The subscription has no checkout to renew', RENEWAL_CHECKOUT_REFUSED);
      }
      try {
        const { checkout } = await openRenewalCheckout(
          { orm: deps.orm, temporal, config, gateway: deps.gateway },
          {
            organizationId: subscription.organizationId,
            original,
            subscription,
            expiresAt: new Date(input.expiresAt),
          },
        );
        return { checkoutId: checkout.id };
      } catch (err) {
        // A refusal (an archived product, say) is final; an outage is retried.
        if (err instanceof ApiError && err.statusCode < 500) {
          throw ApplicationFailure.nonRetryable(err.message, RENEWAL_CHECKOUT_REFUSED, err.code);
        }
        throw err;
      }
    },
  } satisfies Partial<SubscriptionActivities>;
}
