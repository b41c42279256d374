import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import { kyselyOf } from '../kysely.ts';
import type { SubscriptionChargeRow } from './record.ts';
import { escapeLike } from '../../domain/like-patterns.ts';

/** The subscription's renewal timeline (`subscription_charges`): one row per charge try of a period. */

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
export async function insertCharge(
  tx: EntityManager,
  subscription: { id: string; organizationId: string },
  c: ChargeRecord,
): Promise<boolean> {
  const inserted = await kyselyOf(tx)
    .insertInto('subscription_charges')
    .values({
      id: uuidv7(),
      organizationId: subscription.organizationId,
      subscriptionId: subscription.id,
      periodNumber: c.period,
      tryNumber: c.tryNumber,
      amount: c.amount,
      currency: c.currency,
      outcome: c.outcome,
      declineReason: c.declineReason,
      transactionId: c.transactionId,
      checkoutId: c.checkoutId ?? null,
      attemptedAt: c.at,
    })
    .onConflict((oc) => {
      const tried = oc.columns(['subscriptionId', 'periodNumber', 'tryNumber']);
      // Completed only by a try that brings the transaction the row lacks.
      return c.transactionId === null
        ? tried.doNothing()
        : tried
            .doUpdateSet({ transactionId: c.transactionId, attemptedAt: c.at })
            .where('subscription_charges.transactionId', 'is', null);
    })
    .returning('id')
    .execute();
  return inserted.length > 0;
}

/** A succeeded try given back (a raced renewal's refund); false when it was marked already. */
export async function markChargeRefunded(
  tx: EntityManager,
  subscriptionId: string,
  try_: { period: number; tryNumber: number },
): Promise<boolean> {
  const row = await kyselyOf(tx)
    .updateTable('subscription_charges')
    .set({ outcome: 'refunded' })
    .where('subscriptionId', '=', subscriptionId)
    .where('periodNumber', '=', try_.period)
    .where('tryNumber', '=', try_.tryNumber)
    .where('outcome', '=', 'succeeded')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The subscription's timeline, oldest try first. */
export async function chargesOf(em: EntityManager, subscriptionId: string): Promise<SubscriptionChargeRow[]> {
  return kyselyOf(em)
    .selectFrom('subscription_charges')
    .selectAll()
    .where('subscriptionId', '=', subscriptionId)
    .orderBy('attemptedAt', 'asc')
    .orderBy('periodNumber', 'asc')
    .orderBy('tryNumber', 'asc')
    .execute();
}

/** Whether a renewal or upgrade checkout's sale was recorded in the timeline (activities/subscription-sales.ts). */
export async function checkoutChargeRecorded(em: EntityManager, checkoutId: string): Promise<boolean> {
  const row = await kyselyOf(em)
    .selectFrom('subscription_charges')
    .select('id')
    .where('checkoutId', '=', checkoutId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The number of the next try of `period` in the subscription's timeline (1 for its first). */
export async function nextTryNumber(em: EntityManager, subscriptionId: string, period: number): Promise<number> {
  const row = await kyselyOf(em)
    .selectFrom('subscription_charges')
    .select((eb) => eb.fn.max('tryNumber').as('last'))
    .where('subscriptionId', '=', subscriptionId)
    .where('periodNumber', '=', period)
    .executeTakeFirst();
  return Number(row?.last ?? 0) + 1;
}

/** The subscription one of whose renewal tries this transaction of ours is; null when none is. */
export async function subscriptionOfChargeTransaction(
  em: EntityManager,
  transactionId: string,
): Promise<string | null> {
  const row = await kyselyOf(em)
    .selectFrom('subscription_charges')
    .select('subscriptionId')
    .where('transactionId', '=', transactionId)
    .executeTakeFirst();
  return row?.subscriptionId ?? null;
}

/**
 * The subscriptions that charge kept card `replaced` charge `by` from now on (a card updater's
 * replacement, decision 0071): a compare-and-set of the one column, so a card the buyer changed
 * meanwhile (an upgrade's) is left as it is, and a repeat changes nothing. Returns their rows.
 */
export async function replaceSubscriptionCard(em: EntityManager, replaced: string, by: string) {
  return (
    kyselyOf(em)
      .updateTable('subscriptions')
      .set({ cardTokenId: by, modifiedAt: new Date() })
      // The kept card's id, or that id with details after a colon (Mercado Pago's payment method and issuer).
      .where((eb) => eb.or([eb('cardTokenId', '=', replaced), eb('cardTokenId', 'like', `${escapeLike(replaced)}:%`)]))
      .returningAll()
      .execute()
  );
}
