import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/**
 * An upgrade checkout's sale (activities/subscription-sales.ts): the subscription takes the checkout's
 * price, discount and card (its own card kept when the sale brings none), is anchored at the period it
 * enters, ends no trial, is no longer canceled at period end, and holds the credit in its balance.
 */
export async function writeUpgrade(
  tx: EntityManager,
  id: string,
  upgrade: {
    priceId: string;
    productId: string;
    subtotalAmount: number;
    discountId: string | null;
    cardTokenId: string | null;
    billingAnchor: Date;
    anchorPeriod: number;
    credit: number;
    at: Date;
  },
): Promise<void> {
  const u = upgrade;
  await kyselyOf(tx)
    .updateTable('subscriptions')
    .set((eb) => ({
      priceId: u.priceId,
      productId: u.productId,
      subtotalAmount: u.subtotalAmount,
      discountId: u.discountId,
      cardTokenId: eb.fn.coalesce(eb.val(u.cardTokenId), 'cardTokenId'),
      billingAnchor: u.billingAnchor,
      anchorPeriod: u.anchorPeriod,
      trialEnd: null,
      cancelAtPeriodEnd: false,
      balanceAmount: eb('balanceAmount', '+', u.credit),
      modifiedAt: u.at,
    }))
    .where('id', '=', id)
    .execute();
}
