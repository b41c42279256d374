import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { executorOf, plainSql, type Row, type SqlExecutor } from '../db/plain-sql.ts';
import { subscriptionRecord } from '../db/subscription-records.ts';
import { upsertTransaction } from '../db/transactions.ts';
import { prorationBehaviorOf, type ProrationBehavior } from '../domain/proration.ts';
import { upgradeCredit, upgradeRefusal } from '../domain/upgrades.ts';
import { enterPeriod, lockedTerms, recordCharge, type Terms } from './subscription-periods.ts';
import type { CheckoutPaidNotice, CheckoutSaleRecord, SubscriptionActivities } from '../contracts/subscription.ts';
import type { CheckoutRow, Events } from './sale-rows.ts';

/**
 * Sales that move an existing subscription rather than make one, recorded by the subscription's own
 * workflow (its only writer), which the checkout's workflow tells once the payment is captured: a
 * renewal checkout pays a period, an upgrade checkout starts the new price. The workflow runs them
 * one at a time with its renewals, so a period is paid once; a refusal (`refused`) sends the
 * checkout's capture back. The checkout's own rows (its sale, its status) stay its workflow's.
 */
export function createSubscriptionSaleActivities(deps: { orm: Orm }) {
  const db = plainSql(deps.orm);
  return {
    async recordCheckoutSale(
      input: CheckoutPaidNotice & { subscriptionId: string; at: string },
    ): Promise<CheckoutSaleRecord> {
      return db.transaction(async (sql) => {
        const tx = executorOf(sql);
        const [checkout] = await tx.execute<CheckoutRow[]>('select * from checkouts where id = ?', [input.checkoutId]);
        const t = await lockedTerms(tx, input.subscriptionId, true);
        if (!checkout || checkout.subscription_id !== t.id) return { refused: 'not a sale of this subscription' };
        const recorded = await tx.execute<Row[]>('select 1 from subscription_charges where checkout_id = ?', [
          checkout.id,
        ]);
        // Recorded by an earlier try of this activity whose answer was lost: the same answer.
        if (recorded.length === 0) {
          const refused = await recordSale(tx, t, checkout, input);
          if (refused) return { refused };
        }
        const [row] = await tx.execute<Terms[]>('select * from subscriptions where id = ?', [t.id]);
        return {
          status: row!.status,
          periodNumber: Number(row!.period_number),
          periodEnd: new Date(row!.current_period_end).toISOString(),
          hasCard: row!.card_token_id !== null,
          cancelAtPeriodEnd: Boolean(row!.cancel_at_period_end),
        };
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** The sale's moves of the subscription; why not, when it refuses them. */
async function recordSale(
  tx: SqlExecutor,
  t: Terms,
  checkout: CheckoutRow,
  input: CheckoutPaidNotice & { at: string },
): Promise<string | null> {
  const at = new Date(input.at);
  const transactionId = input.payment
    ? await upsertTransaction(tx, { organizationId: t.organization_id, checkoutId: checkout.id }, input.payment)
    : null;
  return checkout.renewal_period !== null
    ? payRenewal(tx, t, checkout, transactionId, at)
    : upgrade(tx, t, checkout, input, transactionId, at);
}

/**
 * A renewal checkout's payment moves its subscription into the period it pays, and takes its place in
 * the subscription's timeline (the next try of that period). A period paid already (the saved card
 * was charged first) or a subscription that has ended is refused.
 */
async function payRenewal(
  tx: SqlExecutor,
  t: Terms,
  checkout: CheckoutRow,
  transactionId: string | null,
  at: Date,
): Promise<string | null> {
  const period = checkout.renewal_period!;
  if (t.status === 'canceled') return 'the subscription has ended';
  if (t.period_number >= period) return `period ${period} is paid already`;
  const [next] = await tx.execute<{ n: number }[]>(
    `select coalesce(max(try_number), 0) + 1 as n from subscription_charges where subscription_id = ? and period_number = ?`,
    [t.id, period],
  );
  const amount = Number(checkout.amount);
  const trace = { period, tryNumber: next!.n, amount, currency: checkout.currency, transactionId, at };
  await recordCharge(tx, t, { ...trace, checkoutId: checkout.id, outcome: 'succeeded', declineReason: null });
  if (Number(checkout.balance_applied) !== 0) {
    // The checkout's amount took this from the balance: it moves by exactly that, whatever it is now.
    await tx.execute('update subscriptions set balance_amount = balance_amount - ? where id = ?', [
      checkout.balance_applied,
      t.id,
    ]);
  }
  await enterPeriod(tx, t, period, amount, at);
  return null;
}

/**
 * An upgrade checkout's payment (domain/upgrades.ts): the subscription takes the checkout's price,
 * discount and card, enters the next period number, which starts now and anchors the periods after
 * it, and is active; the rest of the period it leaves is credited to its balance.
 */
async function upgrade(
  tx: SqlExecutor,
  t: Terms,
  checkout: CheckoutRow,
  paid: CheckoutPaidNotice,
  transactionId: string | null,
  at: Date,
): Promise<string | null> {
  const [p] = await tx.execute<Row[]>(
    `select p.type, p.currency, o.subscription_settings from prices p join organizations o on o.id = p.organization_id
     where p.id = ?`,
    [checkout.product_price_id],
  );
  const refusal = upgradeRefusal(
    { status: t.status, recurrenceBilling: t.recurrence_billing, currency: t.currency, customerId: t.customer_id },
    { priceType: p!.type as string, currency: p!.currency as string, hasTrial: false, customerId: null },
  );
  if (refusal) return `it cannot be upgraded: ${refusal}`;

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
      paid.cardTokenId,
      new Date(paid.periodStart),
      period,
      credit,
      at,
      t.id,
    ],
  );
  const moved = await lockedTerms(tx, t.id);
  const trace = { period, tryNumber: 1, amount, currency: checkout.currency, transactionId, at };
  await recordCharge(tx, moved, { ...trace, checkoutId: checkout.id, outcome: 'succeeded', declineReason: null });
  await enterPeriod(tx, moved, period, amount, at);
  const [row] = await tx.execute<Row[]>('select * from subscriptions where id = ?', [t.id]);
  const events: Events = [
    [
      'subscription.updated',
      { ...subscriptionRecord(row!), previous_price_id: t.price_id, upgrade: { checkout_id: checkout.id, credit } },
    ],
  ];
  await insertEvents(tx, t.organization_id, events);
  return null;
}
