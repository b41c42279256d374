import { ApplicationFailure } from '@temporalio/activity';
import { uuidv7 } from 'uuidv7';
import { insertEvents } from '../db/events.ts';
import type { Row, SqlExecutor } from '../db/plain-sql.ts';
import { subscriptionRecord } from '../db/subscription-records.ts';
import type { PeriodInterval } from '../domain/periods.ts';
import {
  periodBounds,
  transition,
  type DunningExhaustedStatus,
  type SubscriptionChange,
  type SubscriptionStatus,
} from '../domain/subscriptions.ts';
import type { SubscriptionRecord } from '../contracts/subscription.ts';
import type { SubscriptionTerms } from '../db/subscription/terms.ts';

/**
 * The writes a renewal or upgrade checkout's sale (activities/subscription-sales.ts) makes in a
 * subscription's period, on a plain-SQL transaction, and the snake_case `Terms` that file and
 * activities/subscription-extra-charges.ts still take. Kept for those two files (not moved in this
 * step) until they take db/subscription/'s terms and the moves of activities/subscription-lifecycle.ts,
 * which every other subscription activity uses; then this file goes.
 */

/** The subscription's row and its price's terms. */
export interface Terms extends Row {
  id: string;
  organization_id: string;
  customer_id: string;
  product_id: string;
  price_id: string;
  status: SubscriptionStatus;
  period_number: number;
  billing_anchor: string;
  anchor_period: number;
  current_period_end: string;
  subtotal_amount: string;
  currency: string;
  discount_id: string | null;
  card_token_id: string | null;
  gateway_subscription_id: string | null;
  trial_end: string | null;
  current_period_start: string;
  recurrence_billing: 'gateway' | 'manual';
  balance_amount: string;
  /** The gateway-billed period whose balance was settled last (activities/gateway-renewals.ts). */
  balance_settled_period: number | null;
  price_changes: number;
  interval: PeriodInterval;
  interval_count: number | null;
}

/** The snake_case terms of the callers above, from the repository's (for their helpers' calls). */
export function legacyTerms(t: SubscriptionTerms): Terms {
  const text = (d: Date | null | undefined) => (d == null ? null : d.toISOString());
  return {
    id: t.id,
    organization_id: t.organizationId,
    customer_id: t.customerId,
    product_id: t.productId,
    price_id: t.priceId,
    status: t.status,
    period_number: t.periodNumber,
    billing_anchor: t.billingAnchor.toISOString(),
    anchor_period: t.anchorPeriod,
    current_period_end: t.currentPeriodEnd.toISOString(),
    subtotal_amount: String(t.subtotalAmount),
    currency: t.currency,
    discount_id: t.discountId ?? null,
    card_token_id: t.cardTokenId ?? null,
    gateway_subscription_id: t.gatewaySubscriptionId ?? null,
    trial_end: text(t.trialEnd),
    current_period_start: t.currentPeriodStart.toISOString(),
    recurrence_billing: t.recurrenceBilling,
    balance_amount: String(t.balanceAmount),
    balance_settled_period: t.balanceSettledPeriod ?? null,
    price_changes: t.priceChanges,
    interval: t.interval,
    interval_count: t.intervalCount ?? null,
  };
}

export const termsOf = (t: Terms) => ({ interval: t.interval, intervalCount: t.interval_count ?? 1 });

/** Period `period`'s bounds, counted from the subscription's anchor. */
export const boundsOf = (t: Terms, period: number) =>
  periodBounds(new Date(t.billing_anchor), termsOf(t), period - Number(t.anchor_period ?? 1) + 1);

/** The subscription and its terms; `lock` holds its row until the transaction ends. */
export async function lockedTerms(tx: SqlExecutor, subscriptionId: string, lock = false): Promise<Terms> {
  const [row] = await tx.execute<Terms[]>(
    `select s.*, p.interval, p.interval_count from subscriptions s join prices p on p.id = s.price_id where s.id = ?` +
      (lock ? ' for update of s' : ''),
    [subscriptionId],
  );
  if (!row) throw ApplicationFailure.nonRetryable(`Subscription ${subscriptionId} not found`, 'SubscriptionNotFound');
  return row;
}

/**
 * Applies a lifecycle change and writes its event; the subscription as it stands (unchanged when
 * the change does not apply).
 */
export async function applyChange(
  tx: SqlExecutor,
  t: Terms,
  what: SubscriptionChange,
  at: Date,
  exhausted?: DunningExhaustedStatus,
): Promise<SubscriptionRecord> {
  const next = transition(t.status, what, exhausted);
  if (!next) return subscriptionRecord(t);
  const ends = next.status === 'canceled';
  const [row] = await tx.execute<Row[]>(
    `update subscriptions set status = ?, modified_at = ?,
       canceled_at = case when ? then coalesce(canceled_at, ?) else canceled_at end,
       ended_at = case when ? then ? else ended_at end
     where id = ? returning *`,
    [next.status, at, ends, at, ends, at, t.id],
  );
  const record = subscriptionRecord(row!);
  await insertEvents(tx, t.organization_id, [[next.event, { ...record }]]);
  return record;
}

/** Moves a paid subscription into `period` (its anchored bounds, what it was charged) and makes it active. */
export async function enterPeriod(
  tx: SqlExecutor,
  t: Terms,
  period: number,
  amount: number,
  at: Date,
): Promise<{ status: SubscriptionStatus; periodEnd: string }> {
  const bounds = boundsOf(t, period);
  await tx.execute(
    `update subscriptions set period_number = ?, current_period_start = ?, current_period_end = ?, amount = ?
     where id = ?`,
    [period, bounds.start, bounds.end, amount, t.id],
  );
  const { status } = await applyChange(tx, { ...t, period_number: period }, 'charge_succeeded', at);
  return { status, periodEnd: bounds.end.toISOString() };
}

export interface ChargeRecord {
  period: number;
  tryNumber: number;
  amount: number;
  currency: string;
  outcome: 'succeeded' | 'failed';
  declineReason: string | null;
  transactionId: string | null;
  /** The checkout whose sale paid the period (activities/subscription-sales.ts). */
  checkoutId?: string;
  at: Date;
}

/**
 * One row of the renewal timeline; false when this try was recorded already (a retried activity).
 * A row without its transaction, left by a worker from before the workflow was the subscription's
 * only writer (its charge step wrote it, the record completed it), is completed instead.
 */
export async function recordCharge(tx: SqlExecutor, t: Terms, c: ChargeRecord): Promise<boolean> {
  const inserted = await tx.execute<Row[]>(
    `insert into subscription_charges (id, organization_id, subscription_id, period_number, try_number, amount,
       currency, outcome, decline_reason, transaction_id, checkout_id, attempted_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (subscription_id, period_number, try_number) do update
       set transaction_id = excluded.transaction_id, attempted_at = excluded.attempted_at
       where subscription_charges.transaction_id is null and excluded.transaction_id is not null
     returning id`,
    [
      uuidv7(),
      t.organization_id,
      t.id,
      c.period,
      c.tryNumber,
      c.amount,
      c.currency,
      c.outcome,
      c.declineReason,
      c.transactionId,
      c.checkoutId ?? null,
      c.at,
    ],
  );
  return inserted.length > 0;
}
