import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { insertEvents } from '../db/events.ts';
import { subscriptionRecord } from '../db/subscription/record.ts';
import { writePeriod, writeStatus } from '../db/subscription/rows.ts';
import { subscriptionTerms, type SubscriptionTerms } from '../db/subscription/terms.ts';
import {
  periodBounds,
  transition,
  type DunningExhaustedStatus,
  type SubscriptionChange,
  type SubscriptionStatus,
} from '../domain/subscriptions.ts';
import type { SubscriptionRecord } from '../contracts/subscription.ts';

/**
 * The moves of a subscription's lifecycle and periods, run by its workflow's activities in the
 * caller's transaction (`tx`): the subscription's rows through its repository (db/subscription/),
 * each move with its event.
 */

export type { SubscriptionTerms };

/** Period `period`'s bounds, counted from the subscription's anchor. */
export const boundsOf = (t: SubscriptionTerms, period: number) =>
  periodBounds(
    t.billingAnchor,
    { interval: t.interval, intervalCount: t.intervalCount ?? 1 },
    period - t.anchorPeriod + 1,
  );

/** The subscription and its terms; `lock` holds its row until the transaction ends. */
export async function lockedTerms(em: EntityManager, subscriptionId: string, lock = false): Promise<SubscriptionTerms> {
  const t = await subscriptionTerms(em, subscriptionId, { lock });
  if (!t) throw ApplicationFailure.nonRetryable(`Subscription ${subscriptionId} not found`, 'SubscriptionNotFound');
  return t;
}

/**
 * Applies a lifecycle change and writes its event; the subscription as it stands (unchanged when
 * the change does not apply).
 */
export async function applyChange(
  tx: EntityManager,
  t: SubscriptionTerms,
  what: SubscriptionChange,
  at: Date,
  exhausted?: DunningExhaustedStatus,
): Promise<SubscriptionRecord> {
  const next = transition(t.status, what, exhausted);
  if (!next) return subscriptionRecord(t);
  const row = await writeStatus(tx, t.id, { status: next.status, ends: next.status === 'canceled', at });
  const record = subscriptionRecord(row);
  await insertEvents(tx, t.organizationId, [[next.event, { ...record }]]);
  return record;
}

/** Moves a paid subscription into `period` (its anchored bounds, what it was charged) and makes it active. */
export async function enterPeriod(
  tx: EntityManager,
  t: SubscriptionTerms,
  period: number,
  amount: number,
  at: Date,
): Promise<{ status: SubscriptionStatus; periodEnd: string }> {
  const bounds = boundsOf(t, period);
  await writePeriod(tx, t.id, { periodNumber: period, start: bounds.start, end: bounds.end, amount });
  const { status } = await applyChange(tx, { ...t, periodNumber: period }, 'charge_succeeded', at);
  return { status, periodEnd: bounds.end.toISOString() };
}
