import { ApplicationFailure } from '@temporalio/activity';
import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { executorOf, plainSql, type Row, type SqlExecutor } from '../db/plain-sql.ts';
import { subscriptionRecord } from '../db/subscription-records.ts';
import {
  planChangeRefusal,
  prorationAmount,
  prorationBehaviorOf,
  settleProration,
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
import { chargeExtra, type Events } from './subscription-extra-charges.ts';
import { lockedTerms, type Terms } from './subscription-periods.ts';
import type { SubscriptionRecord } from '../contracts/subscription.ts';
import type { MetadataChange, PriceChange } from '../contracts/subscription.ts';
import type { SubscriptionActivities } from '../contracts/subscription.ts';

/**
 * A subscription's move to another price, run by its workflow (a merchant's Update). Under the
 * subscription's row lock, like a renewal: the prorated difference for what is left of the period is
 * settled per the organization's proration_behavior: charged now to the saved card (`prorate`, an
 * upgrade), or kept in the subscription's balance for the next renewal (a credit, `invoice`, or no
 * saved card); `none` prorates nothing. The charge is keyed by the change's number, so a retry never
 * charges twice; a refused charge leaves the price as it was. A gateway-billed subscription's
 * recurrence moves to the new price's plan too (from its next cycle), and its balance is settled
 * when the gateway bills a period (activities/gateway-renewals.ts).
 */
export function createSubscriptionChangeActivities(deps: ChangeDeps) {
  const db = plainSql(deps.orm);

  return {
    async changePrice(input: PriceChange): Promise<SubscriptionRecord> {
      const declined = await db.transaction((sql) => changePriceLocked(deps, executorOf(sql), input));
      if (declined) {
        throw ApplicationFailure.nonRetryable(`The card was declined (${declined})`, PLAN_CHANGE_DECLINED, declined);
      }
      const [row] = await db.query('select * from subscriptions where id = ?', [input.subscriptionId]);
      return subscriptionRecord(row!);
    },

    /**
     * The merchant's metadata, replaced whole (as a product's is), with `subscription.updated`; the
     * same metadata again writes nothing (jsonb equality ignores key order).
     */
    async replaceSubscriptionMetadata(input: MetadataChange): Promise<SubscriptionRecord> {
      return db.transaction(async (sql) => {
        const tx = executorOf(sql);
        const t = await lockedTerms(tx, input.subscriptionId, true);
        if (subscriptionHasEnded(t.status))
          throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
        const metadata = JSON.stringify(input.metadata);
        const [row] = await tx.execute<Row[]>(
          `update subscriptions set metadata = ?::jsonb, modified_at = ?
           where id = ? and metadata is distinct from ?::jsonb returning *`,
          [metadata, new Date(input.at), t.id, metadata],
        );
        if (!row) return subscriptionRecord(t);
        const record = subscriptionRecord(row);
        await insertEvents(tx, t.organization_id, [['subscription.updated', { ...record }]]);
        return record;
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

interface ChangeDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/**
 * The price change under the subscription's row lock: the new price checked, the difference
 * prorated, then charged or kept in the balance, and the subscription written with its event. The
 * decline reason when the prorated charge is refused (nothing else changes then), else null.
 */
async function changePriceLocked(deps: ChangeDeps, tx: SqlExecutor, input: PriceChange): Promise<string | null> {
  const { gateway } = deps;
  const t = await lockedTerms(tx, input.subscriptionId, true);
  if (subscriptionHasEnded(t.status))
    throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
  if (t.price_id === input.priceId) return null;
  const p = await allowedPrice(tx, t, input.priceId);
  const at = new Date(input.at);
  const { behavior, to, prorated, chargeNow, toBalance } = proratedChange(t, p, at);
  const n = Number(t.price_changes) + 1;
  await tx.execute('update subscriptions set price_changes = ? where id = ?', [n, t.id]);

  const events: Events = [];
  const key = priceChangeKey(t.id, n);
  if (chargeNow > 0) {
    const charge = { amount: chargeNow, priceId: p.id as string, productId: p.product_id as string, key, at };
    // Refused: the count moves on (the next try has a key of its own); nothing else changes.
    const refused = await chargeExtra(tx, gateway, t, { ...charge, description: 'Plan change (prorated)' }, events);
    if (refused) return refused;
  }
  // Gateway billing: its recurrence bills the new price's plan from its next cycle on.
  if (t.recurrence_billing === 'gateway') {
    const planId = await callGateway(() => ensureRecurrencePlan(deps, p.id as string));
    await callGateway(() => gateway.changeSubscriptionPlan(t.gateway_subscription_id!, planId!, `${key}:plan`));
  }
  const [row] = await tx.execute<Row[]>(
    `update subscriptions set price_id = ?, product_id = ?, subtotal_amount = ?, amount = ?,
       balance_amount = balance_amount + ?, modified_at = ?
     where id = ? returning *`,
    [p.id, p.product_id, to, to, toBalance, at, t.id],
  );
  const record = subscriptionRecord(row!);
  const proration = { behavior, amount: prorated, charged: chargeNow, to_balance: toBalance };
  events.push(['subscription.updated', { ...record, previous_price_id: t.price_id, proration }]);
  await insertEvents(tx, t.organization_id, events);
  return null;
}

/** The price to move to: the organization's, not deleted, and one the subscription may take (domain/proration.ts). */
async function allowedPrice(tx: SqlExecutor, t: Terms, priceId: string): Promise<Row> {
  const [p] = await tx.execute<Row[]>(
    `select p.*, o.subscription_settings from prices p join organizations o on o.id = p.organization_id
     where p.id = ? and p.organization_id = ? and p.deleted_at is null`,
    [priceId, t.organization_id],
  );
  if (!p) throw ApplicationFailure.nonRetryable('Price not found', PLAN_CHANGE_REFUSED);
  const refusal = planChangeRefusal(
    {
      type: 'recurring',
      active: true,
      currency: t.currency,
      interval: t.interval,
      intervalCount: t.interval_count,
    },
    {
      type: p.type as string,
      active: Boolean(p.active),
      currency: p.currency as string,
      interval: p.interval as string | null,
      intervalCount: p.interval_count as number | null,
    },
  );
  if (refusal) throw ApplicationFailure.nonRetryable(refusal, PLAN_CHANGE_REFUSED);
  return p;
}

/** The prorated difference for what is left of the period, and how the organization settles it. */
function proratedChange(t: Terms, p: Row, at: Date) {
  const behavior = prorationBehaviorOf(p.subscription_settings as { proration_behavior?: ProrationBehavior } | null);
  const from = Number(t.subtotal_amount);
  const to = Number(p.unit_amount);
  const period = { start: new Date(t.current_period_start as string), end: new Date(t.current_period_end) };
  // A trial has nothing paid to prorate: its first charge is the new price.
  const prorated = t.status === 'trialing' ? 0 : prorationAmount(from, to, period, at);
  let { chargeNow, toBalance } = settleProration(behavior, prorated);
  if (chargeNow > 0 && !t.card_token_id) [chargeNow, toBalance] = [0, chargeNow]; // the next renewal settles it
  return { behavior, to, prorated, chargeNow, toBalance };
}
