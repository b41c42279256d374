import type { EntityManager } from '@mikro-orm/postgresql';
import { priceById } from '../db/catalog/subscription-reads.ts';
import { findCheckoutRow } from '../db/checkout/records.ts';
import type { CheckoutRow } from '../db/checkout/lifecycle.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
import { insertEvents } from '../db/events.ts';
import { subscriptionSettingsOf } from '../db/organization/subscription-reads.ts';
import type { Orm } from '../db/orm.ts';
import { checkoutChargeRecorded, insertCharge, nextTryNumber } from '../db/subscription/charges.ts';
import { subscriptionRecord } from '../db/subscription/record.ts';
import { addToBalance, findSubscription } from '../db/subscription/rows.ts';
import { writeUpgrade } from '../db/subscription/upgrades.ts';
import { prorationBehaviorOf } from '../domain/proration.ts';
import { upgradeCredit, upgradeRefusal } from '../domain/upgrades.ts';
import { enterPeriod, lockedTerms, type SubscriptionTerms } from './subscription-lifecycle.ts';
import type { CheckoutPaidNotice, CheckoutSaleRecord, SubscriptionActivities } from '../contracts/subscription.ts';
import type { Events } from './sale-rows.ts';

/**
 * Sales that move an existing subscription rather than make one, recorded by the subscription's own
 * workflow (its only writer), which the checkout's workflow tells once the payment is captured: a
 * renewal checkout pays a period, an upgrade checkout starts the new price. The workflow runs them
 * one at a time with its renewals, so a period is paid once; a refusal (`refused`) sends the
 * checkout's capture back. The checkout's own rows (its sale, its status) stay its workflow's.
 */
export function createSubscriptionSaleActivities(deps: { orm: Orm }) {
  return {
    async recordCheckoutSale(
      input: CheckoutPaidNotice & { subscriptionId: string; at: string },
    ): Promise<CheckoutSaleRecord> {
      return deps.orm.em.fork().transactional(async (tx) => {
        const checkout = await findCheckoutRow(tx, input.checkoutId);
        const t = await lockedTerms(tx, input.subscriptionId, true);
        if (!checkout || checkout.subscriptionId !== t.id) return { refused: 'not a sale of this subscription' };
        // Recorded by an earlier try of this activity whose answer was lost: the same answer.
        if (!(await checkoutChargeRecorded(tx, checkout.id))) {
          const refused = await recordSale(tx, t, checkout, input);
          if (refused) return { refused };
        }
        const row = (await findSubscription(tx, t.id))!;
        return {
          status: row.status,
          periodNumber: row.periodNumber,
          periodEnd: row.currentPeriodEnd.toISOString(),
          hasCard: row.cardTokenId != null,
          cancelAtPeriodEnd: row.cancelAtPeriodEnd,
        };
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** The sale's moves of the subscription; why not, when it refuses them. */
async function recordSale(
  tx: EntityManager,
  t: SubscriptionTerms,
  checkout: CheckoutRow,
  input: CheckoutPaidNotice & { at: string },
): Promise<string | null> {
  const at = new Date(input.at);
  const transactionId = input.payment
    ? await upsertTransaction(tx, { organizationId: t.organizationId, checkoutId: checkout.id }, input.payment)
    : null;
  return checkout.renewalPeriod != null
    ? payRenewal(tx, t, checkout, checkout.renewalPeriod, transactionId, at)
    : upgrade(tx, t, checkout, input, transactionId, at);
}

/**
 * A renewal checkout's payment moves its subscription into the period it pays, and takes its place in
 * the subscription's timeline (the next try of that period). A period paid already (the saved card
 * was charged first) or a subscription that has ended is refused.
 */
async function payRenewal(
  tx: EntityManager,
  t: SubscriptionTerms,
  checkout: CheckoutRow,
  period: number,
  transactionId: string | null,
  at: Date,
): Promise<string | null> {
  if (t.status === 'canceled') return 'the subscription has ended';
  if (t.periodNumber >= period) return `period ${period} is paid already`;
  const tryNumber = await nextTryNumber(tx, t.id, period);
  const amount = checkout.amount;
  const trace = { period, tryNumber, amount, currency: checkout.currency, transactionId, at };
  await insertCharge(tx, t, { ...trace, checkoutId: checkout.id, outcome: 'succeeded', declineReason: null });
  // The checkout's amount took this from the balance: it moves by exactly that, whatever it is now.
  if (checkout.balanceApplied !== 0) await addToBalance(tx, t.id, -checkout.balanceApplied);
  await enterPeriod(tx, t, period, amount, at);
  return null;
}

/**
 * An upgrade checkout's payment (domain/upgrades.ts): the subscription takes the checkout's price,
 * discount and card, enters the next period number, which starts now and anchors the periods after
 * it, and is active; the rest of the period it leaves is credited to its balance.
 */
async function upgrade(
  tx: EntityManager,
  t: SubscriptionTerms,
  checkout: CheckoutRow,
  paid: CheckoutPaidNotice,
  transactionId: string | null,
  at: Date,
): Promise<string | null> {
  const price = (await priceById(tx, checkout.productPriceId))!;
  const settings = await subscriptionSettingsOf(tx, price.organizationId);
  const refusal = upgradeRefusal(
    { status: t.status, recurrenceBilling: t.recurrenceBilling, currency: t.currency, customerId: t.customerId },
    { priceType: price.type, currency: price.currency, hasTrial: false, customerId: null },
  );
  if (refusal) return `it cannot be upgraded: ${refusal}`;

  const behavior = prorationBehaviorOf(settings);
  const left = { start: t.currentPeriodStart, end: t.currentPeriodEnd };
  const credit = upgradeCredit(behavior, t.status, t.amount, left, at);
  const period = t.periodNumber + 1;
  const amount = checkout.amount;
  await writeUpgrade(tx, t.id, {
    priceId: checkout.productPriceId,
    productId: checkout.productId,
    subtotalAmount: checkout.subtotalAmount,
    discountId: checkout.discountId ?? null,
    cardTokenId: paid.cardTokenId,
    billingAnchor: new Date(paid.periodStart),
    anchorPeriod: period,
    credit,
    at,
  });
  const moved = await lockedTerms(tx, t.id);
  const trace = { period, tryNumber: 1, amount, currency: checkout.currency, transactionId, at };
  await insertCharge(tx, moved, { ...trace, checkoutId: checkout.id, outcome: 'succeeded', declineReason: null });
  await enterPeriod(tx, moved, period, amount, at);
  const row = (await findSubscription(tx, t.id))!;
  const events: Events = [
    [
      'subscription.updated',
      { ...subscriptionRecord(row), previous_price_id: t.priceId, upgrade: { checkout_id: checkout.id, credit } },
    ],
  ];
  await insertEvents(tx, t.organizationId, events);
  return null;
}
