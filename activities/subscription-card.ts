import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { findCustomerByKey } from '../db/customer/customers.ts';
import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { subscriptionRecord } from '../db/subscription/record.ts';
import { writeCard } from '../db/subscription/rows.ts';
import type { SubscriptionActivities, SubscriptionRecord } from '../contracts/subscription.ts';
import {
  CARD_CHANGE_REFUSED,
  SUBSCRIPTION_ENDED,
  SUBSCRIPTION_ENDED_MESSAGE,
  subscriptionHasEnded,
} from '../domain/subscriptions.ts';
import { cardPaymentsOf } from '../gateway/capabilities.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { callGateway, refusalReason } from './gateway-failures.ts';
import { lockedTerms } from './subscription-lifecycle.ts';

/**
 * The customer's new card for a subscription's renewals (the portal, decision 0088), run by the
 * subscription's workflow between its renewals: the token the customer's browser minted is kept with
 * the gateway as the checkout keeps a first card (keepBrowserCard, with the customer as its owner),
 * then the subscription charges it from its next renewal on, with subscription.updated.
 */
export function createSubscriptionCardActivities(deps: { orm: Orm; gateway: PaymentGateway }) {
  const { orm, gateway } = deps;
  return {
    async replaceCard(input: {
      subscriptionId: string;
      browserToken: string;
      at: string;
    }): Promise<SubscriptionRecord> {
      const em = orm.em.fork();
      const t = await lockedTerms(em, input.subscriptionId);
      if (subscriptionHasEnded(t.status)) {
        throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
      }
      if (t.recurrenceBilling === 'gateway') {
        throw ApplicationFailure.nonRetryable(
          'The gateway bills this subscription with its own card',
          CARD_CHANGE_REFUSED,
        );
      }
      const customer = await findCustomerByKey(em, t.organizationId, { id: t.customerId });
      const owner = { email: customer?.email ?? null, name: customer?.name ?? null };
      // One key per token: a retried activity keeps the same card once.
      const key = `subscription-card:${t.id}:${createHash('sha256').update(input.browserToken).digest('hex')}`;
      const card = await callGateway(async () =>
        cardPaymentsOf(gateway).keepBrowserCard(input.browserToken, owner, key),
      ).catch((err) => {
        throw refusedCard(err);
      });
      return orm.em.fork().transactional(async (tx) => {
        await lockedTerms(tx, t.id, true);
        const record = subscriptionRecord(await writeCard(tx, t.id, card.id, new Date(input.at)));
        await insertEvents(tx, t.organizationId, [['subscription.updated', { ...record }]]);
        return record;
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** A token the gateway does not know (or will not keep) is the customer's to retype: a 422, not retried. */
function refusedCard(err: unknown): unknown {
  return refusalReason(err) === null
    ? err
    : ApplicationFailure.nonRetryable('The gateway refused the card', CARD_CHANGE_REFUSED);
}
