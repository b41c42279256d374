import { ApplicationFailure } from '@temporalio/activity';
import type { Row, SqlExecutor } from '../db/plain-sql.ts';
import { subscriptionRecord } from '../db/subscription-records.ts';
import { prorationBehaviorOf, type ProrationBehavior } from '../domain/proration.ts';
import { upgradeCredit, upgradeRefusal } from '../domain/upgrades.ts';
import { enterPeriod, lockedTerms, traceCharge, type Terms } from './subscription-periods.ts';
import type { RecordSaleInput } from '../contracts/checkout.ts';
import type { CheckoutRow, Events } from './sale-rows.ts';

/**
 * Sales that move an existing subscription rather than make one (activities/checkout-sale.ts calls
 * them in the sale's transaction): a renewal checkout pays a period, an upgrade checkout starts the
 * new price. Both take the subscription's row lock, which its renewals take too, and refuse (the
 * checkout's capture is then given back) rather than pay for what is paid or being paid.
 */

const rejected = (message: string) => ApplicationFailure.nonRetryable(message, 'RecordingRejected');

/**
 * A renewal checkout's payment moves its subscription into the period it pays, and takes its place in
 * the subscription's timeline (the next try of that period). A period paid already (the saved card
 * was charged first) or a subscription that has ended refuses the record: the capture is given back.
 */
export async function payRenewal(
  tx: SqlExecutor,
  checkout: CheckoutRow,
  transactionId: string | null,
  at: Date,
): Promise<string> {
  const period = checkout.renewal_period!;
  const t = await lockedTerms(tx, checkout.subscription_id!, true);
  if (t.status === 'canceled' || t.period_number >= period || (await renewalBeingRecorded(tx, t))) {
    throw rejected(`Period ${period} of subscription ${t.id} is paid already, or the subscription has ended`);
  }
  const [next] = await tx.execute<{ n: number }[]>(
    `select coalesce(max(try_number), 0) + 1 as n from subscription_charges where subscription_id = ? and period_number = ?`,
    [t.id, period],
  );
  const amount = Number(checkout.amount);
  const trace = { period, tryNumber: next!.n, amount, currency: checkout.currency, transactionId, at };
  await traceCharge(tx, t, { ...trace, outcome: 'succeeded', declineReason: null });
  if (Number(checkout.balance_applied) !== 0) {
    // The checkout's amount took this from the balance: it moves by exactly that, whatever it is now.
    await tx.execute('update subscriptions set balance_amount = balance_amount - ? where id = ?', [
      checkout.balance_applied,
      t.id,
    ]);
  }
  await enterPeriod(tx, t, period, amount, at);
  return t.id;
}

/**
 * An upgrade checkout's payment (domain/upgrades.ts): the subscription takes the checkout's price,
 * discount and card, enters the next period number, which starts now and anchors the periods after
 * it, and is active; the rest of the period it leaves is credited to its balance. Its workflow is
 * signalled by the checkout's and reads it again.
 */
export async function upgradeSubscription(
  tx: SqlExecutor,
  checkout: CheckoutRow,
  first: NonNullable<RecordSaleInput['subscription']>,
  transactionId: string | null,
  at: Date,
  events: Events,
): Promise<string> {
  const t = await lockedTerms(tx, checkout.subscription_id!, true);
  const [p] = await tx.execute<Row[]>(
    `select p.type, p.currency, o.subscription_settings from prices p join organizations o on o.id = p.organization_id
     where p.id = ?`,
    [checkout.product_price_id],
  );
  const refusal = upgradeRefusal(
    { status: t.status, recurrenceBilling: t.recurrence_billing, currency: t.currency, customerId: t.customer_id },
    { priceType: p!.type as string, currency: p!.currency as string, hasTrial: false, customerId: null },
  );
  if (refusal) throw rejected(`Subscription ${t.id} cannot be upgraded: ${refusal}`);
  if (await renewalBeingRecorded(tx, t)) throw rejected(`A renewal of subscription ${t.id} is being recorded`);

  const behavior = prorationBehaviorOf(p!.subscription_settings as { proration_behavior?: ProrationBehavior } | null);
  const left = { start: new Date(t.current_period_start), end: new Date(t.current_period_end) };
  const credit = upgradeCredit(behavior, t.status, Number(t.amount), left, at);
  const period = t.period_number + 1;
  const amount = Number(checkout.amount);
  await tx.execute(
    `update subscriptions set price_id = ?, product_id = ?, subtotal_amount = ?, discount_id = ?,
       card_token_id = coalesce(?, card_token_id), billing_anchor = ?, anchor_period = ?, trial_end = null,
       cancel_at_period_end = false, balance_amount = balance_amount + ?, modified_at = ?
     where id = ?`,
    [
      checkout.product_price_id,
      checkout.product_id,
      checkout.subtotal_amount,
      checkout.discount_id,
      first.cardTokenId ?? null,
      new Date(first.periodStart),
      period,
      credit,
      at,
      t.id,
    ],
  );
  const moved = await lockedTerms(tx, t.id);
  const trace = { period, tryNumber: 1, amount, currency: checkout.currency, transactionId, at };
  await traceCharge(tx, moved, { ...trace, outcome: 'succeeded', declineReason: null });
  await enterPeriod(tx, moved, period, amount, at);
  const [row] = await tx.execute<Row[]>('select * from subscriptions where id = ?', [t.id]);
  const upgrade = { checkout_id: checkout.id, credit };
  events.push(['subscription.updated', { ...subscriptionRecord(row!), previous_price_id: t.price_id, upgrade }]);
  return t.id;
}

/** The saved card's capture of a later period, traced but not yet recorded (activities/subscriptions.ts). */
async function renewalBeingRecorded(tx: SqlExecutor, t: Terms): Promise<boolean> {
  const rows = await tx.execute<Row[]>(
    `select 1 from subscription_charges where subscription_id = ? and period_number > ? and outcome = 'succeeded'
     limit 1`,
    [t.id, t.period_number],
  );
  return rows.length > 0;
}
