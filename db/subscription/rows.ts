import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';
import type { NewSubscriptionRow, SubscriptionRow } from './record.ts';

/**
 * The subscription object's repository, its row: read (held `for update` until the transaction ends
 * when its workflow's step writes it) and written, one statement per change the workflow records.
 * Every write answers the row as written, so the caller's record and event are of what is stored.
 */

export async function findSubscription(
  em: EntityManager,
  id: string,
  options: { lock?: boolean } = {},
): Promise<SubscriptionRow | null> {
  const query = kyselyOf(em).selectFrom('subscriptions').selectAll().where('id', '=', id);
  return (await (options.lock ? query.forUpdate() : query).executeTakeFirst()) ?? null;
}

/** A new subscription's row (a checkout's sale makes it, activities/checkout-sale.ts), as written. */
export async function insertSubscription(tx: EntityManager, row: NewSubscriptionRow): Promise<SubscriptionRow> {
  return kyselyOf(tx).insertInto('subscriptions').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The organization's subscription `id` (another organization's is as absent as an unknown id). */
export async function findOwnSubscription(
  em: EntityManager,
  scope: { organizationId: string; customerId?: string },
  id: string,
): Promise<SubscriptionRow | null> {
  let query = kyselyOf(em)
    .selectFrom('subscriptions')
    .selectAll()
    .where('id', '=', id)
    .where('organizationId', '=', scope.organizationId);
  if (scope.customerId !== undefined) query = query.where('customerId', '=', scope.customerId);
  return (await query.executeTakeFirst()) ?? null;
}

/** The subscription billed by the gateway's subscription `gatewaySubscriptionId`, if one of ours is. */
export async function subscriptionIdOfGateway(
  em: EntityManager,
  gatewaySubscriptionId: string,
): Promise<string | null> {
  const row = await kyselyOf(em)
    .selectFrom('subscriptions')
    .select('id')
    .where('gatewaySubscriptionId', '=', gatewaySubscriptionId)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** A lifecycle move: its status, and its end (canceled_at kept when set already) when it ends. */
export async function writeStatus(
  em: EntityManager,
  id: string,
  change: { status: SubscriptionRow['status']; ends: boolean; at: Date },
): Promise<SubscriptionRow> {
  const { status, ends, at } = change;
  return kyselyOf(em)
    .updateTable('subscriptions')
    .set((eb) => ({
      status,
      modifiedAt: at,
      ...(ends ? { canceledAt: eb.fn.coalesce('canceledAt', eb.val(at)), endedAt: at } : {}),
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Moves the subscription into a paid period: its bounds and what it was charged. */
export async function writePeriod(
  em: EntityManager,
  id: string,
  period: { periodNumber: number; start: Date; end: Date; amount: number },
): Promise<void> {
  await kyselyOf(em)
    .updateTable('subscriptions')
    .set({
      periodNumber: period.periodNumber,
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      amount: period.amount,
    })
    .where('id', '=', id)
    .execute();
}

/** Adds `delta` (positive: owed; negative: credited) to the balance the next renewals take. */
export async function addToBalance(em: EntityManager, id: string, delta: number): Promise<void> {
  await kyselyOf(em)
    .updateTable('subscriptions')
    .set((eb) => ({ balanceAmount: eb('balanceAmount', '+', delta) }))
    .where('id', '=', id)
    .execute();
}

export async function writeCancelAtPeriodEnd(
  em: EntityManager,
  id: string,
  cancel: boolean,
  at: Date,
): Promise<SubscriptionRow> {
  return kyselyOf(em)
    .updateTable('subscriptions')
    .set({ cancelAtPeriodEnd: cancel, modifiedAt: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The merchant's metadata, replaced whole; null when it is that metadata already (jsonb equality ignores key order). */
export async function writeMetadata(
  em: EntityManager,
  id: string,
  metadata: Record<string, unknown>,
  at: Date,
): Promise<SubscriptionRow | null> {
  const row = await kyselyOf(em)
    .updateTable('subscriptions')
    .set({ metadata, modifiedAt: at })
    .where('id', '=', id)
    .where('metadata', 'is distinct from', metadata)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** The card the renewals charge from now on (the customer's replacement); the row as written. */
export async function writeCard(
  em: EntityManager,
  id: string,
  cardTokenId: string,
  at: Date,
): Promise<SubscriptionRow> {
  return kyselyOf(em)
    .updateTable('subscriptions')
    .set({ cardTokenId, modifiedAt: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Who bills the periods from the next on (a manual subscription adopting its mandate, decision 0098); the row as written. */
export async function writeRecurrenceBilling(
  em: EntityManager,
  id: string,
  recurrenceBilling: SubscriptionRow['recurrenceBilling'],
  at: Date,
): Promise<SubscriptionRow> {
  return kyselyOf(em)
    .updateTable('subscriptions')
    .set({ recurrenceBilling, modifiedAt: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The plan change numbered `n` is taken (a refused charge takes its number too). */
export async function writePriceChangeNumber(em: EntityManager, id: string, n: number): Promise<void> {
  await kyselyOf(em).updateTable('subscriptions').set({ priceChanges: n }).where('id', '=', id).execute();
}

/** The subscription on its new price: the price's amount, and what the change left in the balance. */
export async function writePrice(
  em: EntityManager,
  id: string,
  price: { priceId: string; productId: string; amount: number; toBalance: number; at: Date },
): Promise<SubscriptionRow> {
  return kyselyOf(em)
    .updateTable('subscriptions')
    .set((eb) => ({
      priceId: price.priceId,
      productId: price.productId,
      subtotalAmount: price.amount,
      amount: price.amount,
      balanceAmount: eb('balanceAmount', '+', price.toBalance),
      modifiedAt: price.at,
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Claims the settlement of gateway-billed period `period`'s balance, once: false when it was settled
 * already (a retried step) or the subscription is no longer in that period.
 */
export async function claimBalanceSettlement(em: EntityManager, id: string, period: number): Promise<boolean> {
  const claimed = await kyselyOf(em)
    .updateTable('subscriptions')
    .set({ balanceSettledPeriod: period })
    .where('id', '=', id)
    .where('periodNumber', '=', period)
    .where('balanceSettledPeriod', 'is distinct from', period)
    .returning('id')
    .executeTakeFirst();
  return claimed !== undefined;
}
