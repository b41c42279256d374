import type { RedemptionOutcome } from './catalog/discount-redemptions.ts';
import type { SqlExecutor } from './plain-sql.ts';

/**
 * LEFT BEHIND for the plain-SQL transaction of activities/checkout-records.ts only: the catalog's
 * typed redemption is db/catalog/discount-redemptions.ts, which that activity calls once it runs in
 * an entity transaction; this file then goes.
 */

/**
 * Counts one use of a discount by a checkout, exactly once, inside the caller's transaction.
 *
 * - The redemption row is the idempotency record: a checkout that already redeemed (a retried
 *   confirmation, a replayed activity) gets `already_redeemed` and nothing is counted again. A
 *   checkout redeems at most one discount (checkout_id is unique), so a second, different discount
 *   for the same checkout is also `already_redeemed`.
 * - The count is taken by one conditional UPDATE (domain/discounts.ts hasRedemptionsLeft, in SQL). Concurrent redemptions queue on the discount's row
 *   lock and PostgreSQL re-checks `redemptions_count < max_redemptions` on the row each one finally
 *   sees, so `max_redemptions` is never exceeded, however many buyers race.
 * - `exhausted` when the limit is reached or the discount was deleted meanwhile (it no longer
 *   applies). The redemption row is removed again, so the transaction stays consistent even if the
 *   caller commits; callers normally roll back and answer that the discount no longer applies.
 */
export async function redeemDiscount(
  tx: SqlExecutor,
  discountId: string,
  checkoutId: string,
): Promise<RedemptionOutcome> {
  const inserted = await tx.execute<{ checkout_id: string }[]>(
    `insert into discount_redemptions (discount_id, checkout_id, created_at) values (?, ?, now())
     on conflict do nothing returning checkout_id`,
    [discountId, checkoutId],
  );
  if (inserted.length === 0) return 'already_redeemed';

  const counted = await tx.execute<{ id: string }[]>(
    `update discounts set redemptions_count = redemptions_count + 1
     where id = ? and deleted_at is null and (max_redemptions is null or redemptions_count < max_redemptions)
     returning id`,
    [discountId],
  );
  if (counted.length === 1) return 'redeemed';

  await tx.execute('delete from discount_redemptions where discount_id = ? and checkout_id = ?', [
    discountId,
    checkoutId,
  ]);
  return 'exhausted';
}
