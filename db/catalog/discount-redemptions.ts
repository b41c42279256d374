import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

export type RedemptionOutcome = 'redeemed' | 'already_redeemed' | 'exhausted';

/**
 * Counts one use of a discount by a checkout, exactly once, inside the caller's transaction.
 *
 * - The redemption row is the idempotency record: a checkout that already redeemed (a retried
 *   confirmation, a replayed activity) gets `already_redeemed` and nothing is counted again. A
 *   checkout redeems at most one discount (checkout_id is unique), so a second, different discount
 *   for the same checkout is also `already_redeemed`.
 * - The count is taken by one conditional UPDATE (domain/discounts.ts hasRedemptionsLeft, in SQL).
 *   Concurrent redemptions queue on the discount's row lock and PostgreSQL re-checks
 *   `redemptions_count < max_redemptions` on the row each one finally sees, so `max_redemptions` is
 *   never exceeded, however many buyers race.
 * - `exhausted` when the limit is reached or the discount was deleted meanwhile (it no longer
 *   applies). The redemption row is removed again, so the transaction stays consistent even if the
 *   caller commits; callers normally roll back and answer that the discount no longer applies.
 */
export async function redeemDiscount(
  tx: EntityManager,
  discountId: string,
  checkoutId: string,
): Promise<RedemptionOutcome> {
  const db = kyselyOf(tx);
  const inserted = await db
    .insertInto('discount_redemptions')
    .values((eb) => ({ discountId, checkoutId, createdAt: eb.fn<Date>('now') }))
    .onConflict((oc) => oc.doNothing())
    .returning('checkoutId')
    .execute();
  if (inserted.length === 0) return 'already_redeemed';

  const counted = await db
    .updateTable('discounts')
    .set((eb) => ({ redemptionsCount: eb('redemptionsCount', '+', 1) }))
    .where('id', '=', discountId)
    .where('deletedAt', 'is', null)
    .where((eb) => eb.or([eb('maxRedemptions', 'is', null), eb('redemptionsCount', '<', eb.ref('maxRedemptions'))]))
    .returning('id')
    .execute();
  if (counted.length === 1) return 'redeemed';

  await db
    .deleteFrom('discount_redemptions')
    .where('discountId', '=', discountId)
    .where('checkoutId', '=', checkoutId)
    .execute();
  return 'exhausted';
}

/** Gives back the redemption a checkout holds, if any (its discount was removed or replaced). */
export async function releaseRedemption(tx: EntityManager, checkoutId: string): Promise<void> {
  const db = kyselyOf(tx);
  const released = await db
    .deleteFrom('discount_redemptions')
    .where('checkoutId', '=', checkoutId)
    .returning('discountId')
    .execute();
  // At most one row: a checkout redeems at most one discount (checkout_id is unique).
  for (const { discountId } of released) {
    await db
      .updateTable('discounts')
      .set((eb) => ({ redemptionsCount: eb('redemptionsCount', '-', 1) }))
      .where('id', '=', discountId)
      .execute();
  }
}
