import { recurringBillingOf } from '../gateway/capabilities.ts';
import { ApplicationFailure } from '@temporalio/activity';
import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { executorOf, plainSql, type PlainSql, type Row, type SqlExecutor } from '../db/plain-sql.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { subscriptionRecord } from '../db/subscription-records.ts';
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
import { lockedTerms, type Terms } from './subscription-periods.ts';
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
  const db = plainSql(orm);

  return {
    async changePrice(input: PriceChange): Promise<SubscriptionRecord> {
      const change = await planPriceChange(db, input);
      if (change) {
        // The gateway first, outside any transaction: keyed by the change's number, which only this
        // step's record moves, so a retried activity gets the gateway's first answer.
        const { t, price, charge } = change;
        const charged = charge ? await chargeSavedCard(gateway, t, charge) : null;
        if (t.recurrence_billing === 'gateway' && (!charged || charged.status === 'succeeded')) {
          // Gateway billing: its recurrence bills the new price's plan from its next cycle on.
          const planId = await callGateway(() => ensureRecurrencePlan(deps, price.id as string));
          const key = `${priceChangeKey(t.id, change.n)}:plan`;
          await callGateway(() =>
            recurringBillingOf(gateway).changeSubscriptionPlan(t.gateway_subscription_id!, planId!, key),
          );
        }
        const declined = await db.transaction((sql) => recordPriceChange(executorOf(sql), change, charged));
        if (declined) {
          throw ApplicationFailure.nonRetryable(`The card was declined (${declined})`, PLAN_CHANGE_DECLINED, declined);
        }
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

interface PlannedPriceChange {
  t: Terms;
  price: Row;
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
async function planPriceChange(db: PlainSql, input: PriceChange): Promise<PlannedPriceChange | null> {
  const t = await lockedTerms(executorOf(db.query), input.subscriptionId);
  if (subscriptionHasEnded(t.status))
    throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
  if (t.price_id === input.priceId) return null;
  const [p] = await db.query(
    `select p.*, o.subscription_settings, pr.is_archived as product_archived
     from prices p join organizations o on o.id = p.organization_id join products pr on pr.id = p.product_id
     where p.id = ? and p.organization_id = ? and p.deleted_at is null`,
    [input.priceId, t.organization_id],
  );
  if (!p) throw ApplicationFailure.nonRetryable('Price not found', PLAN_CHANGE_REFUSED);
  const refusal = planChangeRefusal(
    { type: 'recurring', active: true, currency: t.currency, interval: t.interval, intervalCount: t.interval_count },
    {
      type: p.type as string,
      active: Boolean(p.active),
      currency: p.currency as string,
      interval: p.interval as string | null,
      intervalCount: p.interval_count as number | null,
    },
  );
  const refused = refusal ?? archivedProductRefusal({ productArchived: Boolean(p.product_archived) });
  if (refused) throw ApplicationFailure.nonRetryable(refused, PLAN_CHANGE_REFUSED);

  const behavior = prorationBehaviorOf(p.subscription_settings as { proration_behavior?: ProrationBehavior } | null);
  const at = new Date(input.at);
  const period = { start: new Date(t.current_period_start), end: new Date(t.current_period_end) };
  const { prorated, chargeNow, toBalance } = planChangeSettlement({
    behavior,
    trialing: t.status === 'trialing',
    from: Number(t.subtotal_amount),
    to: Number(p.unit_amount),
    period,
    at,
    savedCard: Boolean(t.card_token_id),
  });
  const n = Number(t.price_changes) + 1;
  const charge =
    chargeNow > 0
      ? {
          amount: chargeNow,
          priceId: p.id as string,
          productId: p.product_id as string,
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
  tx: SqlExecutor,
  change: PlannedPriceChange,
  charged: PaymentSummary | null,
): Promise<string | null> {
  const { t, price: p, n, at } = change;
  await lockedTerms(tx, t.id, true);
  await tx.execute('update subscriptions set price_changes = ? where id = ?', [n, t.id]);
  const events: Events = [];
  if (change.charge && charged) {
    const refused = await recordExtraCharge(tx, t, change.charge, charged, events);
    if (refused) {
      await insertEvents(tx, t.organization_id, events);
      return refused;
    }
  }
  const to = Number(p.unit_amount);
  const [row] = await tx.execute<Row[]>(
    `update subscriptions set price_id = ?, product_id = ?, subtotal_amount = ?, amount = ?,
       balance_amount = balance_amount + ?, modified_at = ?
     where id = ? returning *`,
    [p.id, p.product_id, to, to, change.toBalance, at, t.id],
  );
  const record = subscriptionRecord(row!);
  const proration = {
    behavior: change.behavior,
    amount: change.prorated,
    charged: change.charge?.amount ?? 0,
    to_balance: change.toBalance,
  };
  events.push(['subscription.updated', { ...record, previous_price_id: t.price_id, proration }]);
  await insertEvents(tx, t.organization_id, events);
  return null;
}
