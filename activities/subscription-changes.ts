import { recurringBillingOf } from '../gateway/capabilities.ts';
import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { planChangePrice } from '../db/catalog/subscription-reads.ts';
import { insertEvents } from '../db/events.ts';
import { subscriptionSettingsOf } from '../db/organization/subscription-reads.ts';
import type { Orm } from '../db/orm.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { subscriptionRecord } from '../db/subscription/record.ts';
import { findSubscription, writeMetadata, writePrice, writePriceChangeNumber } from '../db/subscription/rows.ts';
import {
  archivedProductRefusal,
  planChangeRefusal,
  planChangeSettlement,
  prorationBehaviorOf,
  type ProrationBehavior,
} from '../domain/proration.ts';
import {
  PLAN_CHANGE_DECLINED,
  PLAN_CHANGE_REFUSED,
  priceChangeKey,
  SUBSCRIPTION_ENDED,
  SUBSCRIPTION_ENDED_MESSAGE,
  subscriptionHasEnded,
} from '../domain/subscriptions.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { callGateway } from './gateway-failures.ts';
import { ensureRecurrencePlan } from '../use-cases/recurrence-plans.ts';
import { chargeSavedCard, recordExtraCharge, type Events, type ExtraCharge } from './subscription-extra-charges.ts';
import { lockedTerms, type SubscriptionTerms } from './subscription-lifecycle.ts';
import type { SubscriptionRecord } from '../contracts/subscription.ts';
import type { MetadataChange, PriceChange } from '../contracts/subscription.ts';
import type { SubscriptionActivities } from '../contracts/subscription.ts';

/**
 * A subscription's move to another price, run by its workflow (a merchant's Update), one step at a
 * time with its renewals (no lock is held across the gateway's call): the prorated difference for what is left of the period is
 * settled per the organization's proration_behavior: charged now to the saved card (`prorate`, an
 * upgrade), or kept in the subscription's balance for the next renewal (a credit, `invoice`, or no
 * saved card); `none` prorates nothing. The charge is keyed by the change's number, so a retry never
 * charges twice; a refused charge leaves the price as it was. A gateway-billed subscription's
 * recurrence moves to the new price's plan too (from its next cycle), and its balance is settled
 * when the gateway bills a period (activities/gateway-renewals.ts).
 */
export function createSubscriptionChangeActivities(deps: { orm: Orm; gateway: PaymentGateway }) {
  const { orm, gateway } = deps;

  return {
    async changePrice(input: PriceChange): Promise<SubscriptionRecord> {
      const change = await planPriceChange(orm.em.fork(), input);
      if (change) {
        // The gateway first, outside any transaction: keyed by the change's number, which only this
        // step's record moves, so a retried activity gets the gateway's first answer.
        const { t, price, charge } = change;
        const charged = charge ? await chargeSavedCard(gateway, t, charge) : null;
        if (t.recurrenceBilling === 'gateway' && (!charged || charged.status === 'succeeded')) {
          // Gateway billing: its recurrence bills the new price's plan from its next cycle on.
          const planId = await callGateway(() => ensureRecurrencePlan(deps, price.id));
          const key = `${priceChangeKey(t.id, change.n)}:plan`;
          await callGateway(() =>
            recurringBillingOf(gateway).changeSubscriptionPlan(t.gatewaySubscriptionId!, planId!, key),
          );
        }
        const declined = await orm.em.fork().transactional((tx) => recordPriceChange(tx, change, charged));
        if (declined) {
          throw ApplicationFailure.nonRetryable(`The card was declined (${declined})`, PLAN_CHANGE_DECLINED, declined);
        }
      }
      const s = await findSubscription(orm.em.fork(), input.subscriptionId);
      if (!s) throw new Error(`Subscription ${input.subscriptionId} not found`);
      return subscriptionRecord(s);
    },

    /**
     * The merchant's metadata, replaced whole (as a product's is), with `subscription.updated`; the
     * same metadata again writes nothing (jsonb equality ignores key order).
     */
    async replaceSubscriptionMetadata(input: MetadataChange): Promise<SubscriptionRecord> {
      return orm.em.fork().transactional(async (tx) => {
        const t = await lockedTerms(tx, input.subscriptionId, true);
        if (subscriptionHasEnded(t.status))
          throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
        const row = await writeMetadata(tx, t.id, input.metadata, new Date(input.at));
        if (!row) return subscriptionRecord(t);
        const record = subscriptionRecord(row);
        await insertEvents(tx, t.organizationId, [['subscription.updated', { ...record }]]);
        return record;
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

type PlanChangePrice = NonNullable<Awaited<ReturnType<typeof planChangePrice>>>['price'];

interface PlannedPriceChange {
  t: SubscriptionTerms;
  price: PlanChangePrice;
  n: number;
  at: Date;
  behavior: ProrationBehavior;
  prorated: number;
  toBalance: number;
  /** What the saved card is charged now; null when nothing is. */
  charge: ExtraCharge | null;
}

/**
 * What a move to another price takes, read without a lock (the subscription's workflow, its only
 * writer, runs nothing else of it meanwhile): the prorated difference for what is left of the period,
 * settled per the organization's proration_behavior. Null when the price is the subscription's already
 * (a retry of a change recorded).
 */
async function planPriceChange(em: EntityManager, input: PriceChange): Promise<PlannedPriceChange | null> {
  const t = await lockedTerms(em, input.subscriptionId);
  if (subscriptionHasEnded(t.status))
    throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
  if (t.priceId === input.priceId) return null;
  const found = await planChangePrice(em, t.organizationId, input.priceId);
  if (!found) throw ApplicationFailure.nonRetryable('Price not found', PLAN_CHANGE_REFUSED);
  const { price: p, productArchived } = found;
  const refusal = planChangeRefusal(
    { type: 'recurring', active: true, currency: t.currency, interval: t.interval, intervalCount: t.intervalCount },
    {
      type: p.type,
      active: p.active,
      currency: p.currency,
      interval: p.interval ?? null,
      intervalCount: p.intervalCount ?? null,
    },
  );
  const refused = refusal ?? archivedProductRefusal({ productArchived });
  if (refused) throw ApplicationFailure.nonRetryable(refused, PLAN_CHANGE_REFUSED);

  const settings = await subscriptionSettingsOf(em, t.organizationId);
  const behavior = prorationBehaviorOf(settings);
  const at = new Date(input.at);
  const period = { start: t.currentPeriodStart, end: t.currentPeriodEnd };
  const { prorated, chargeNow, toBalance } = planChangeSettlement({
    behavior,
    trialing: t.status === 'trialing',
    from: t.subtotalAmount,
    to: p.unitAmount,
    period,
    at,
    savedCard: Boolean(t.cardTokenId),
  });
  const n = t.priceChanges + 1;
  const charge =
    chargeNow > 0
      ? {
          amount: chargeNow,
          priceId: p.id,
          productId: p.productId,
          key: priceChangeKey(t.id, n),
          description: 'Plan change (prorated)',
          at,
        }
      : null;
  return { t, price: p, n, at, behavior, prorated, toBalance, charge };
}

/**
 * The change's record, in one transaction: its number (a refused charge moves it on too, so the next
 * try has a key of its own), the charge's transaction and sale, and the subscription on its new price
 * with subscription.updated. The decline reason when the card refused (nothing else changes).
 */
async function recordPriceChange(
  tx: EntityManager,
  change: PlannedPriceChange,
  charged: PaymentSummary | null,
): Promise<string | null> {
  const { t, price: p, n, at } = change;
  await lockedTerms(tx, t.id, true);
  await writePriceChangeNumber(tx, t.id, n);
  const events: Events = [];
  if (change.charge && charged) {
    const refused = await recordExtraCharge(tx, t, change.charge, charged, events);
    if (refused) {
      await insertEvents(tx, t.organizationId, events);
      return refused;
    }
  }
  const row = await writePrice(tx, t.id, {
    priceId: p.id,
    productId: p.productId,
    amount: p.unitAmount,
    toBalance: change.toBalance,
    at,
  });
  const record = subscriptionRecord(row);
  const proration = {
    behavior: change.behavior,
    amount: change.prorated,
    charged: change.charge?.amount ?? 0,
    to_balance: change.toBalance,
  };
  events.push(['subscription.updated', { ...record, previous_price_id: t.priceId, proration }]);
  await insertEvents(tx, t.organizationId, events);
  return null;
}
