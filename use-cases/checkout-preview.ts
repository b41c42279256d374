import type { EntityManager } from '@mikro-orm/postgresql';
import { discountByCode } from '../db/catalog/checkout-reads.ts';
import { salePayments } from '../db/checkout/sale-record-reads.ts';
import { paidSaleOfCheckout } from '../db/sale/reads.ts';
import { applyDiscountCode, type DiscountCodeRefusal } from '../domain/checkout.ts';
import { discountRule } from '../domain/discounts.ts';
import type { CheckoutEntity } from './schemas/checkouts.ts';

/**
 * What the hosted checkout shows before and after the payment, beside the checkout itself
 * (pages/checkout): a discount code's effect on the total before the buyer pays, and what the sale of a
 * paid checkout recorded.
 */

export type DiscountPreview =
  { ok: true; discountAmount: number; amount: number } | { ok: false; reason: DiscountCodeRefusal };

/**
 * The checkout's discount and total with `code` applied, by the rule the confirmation applies
 * (domain/checkout.ts applyDiscountCode); nothing is written, and nothing redeemed: the confirmation
 * still decides (a code used up meanwhile is refused there).
 */
export async function discountPreview(
  em: EntityManager,
  checkout: CheckoutEntity,
  code: string,
  now: Date,
): Promise<DiscountPreview> {
  const discount = await discountByCode(em, checkout.organizationId, code);
  const applied = applyDiscountCode(
    {
      allowDiscountCodes: checkout.allowDiscountCodes,
      discountId: checkout.discountId ?? null,
      subtotalAmount: Number(checkout.subtotalAmount),
      productId: checkout.productId,
      currency: checkout.currency,
    },
    discount ? { id: discount.id, ...discountRule(discount) } : null,
    now,
  );
  if (!applied.ok) return applied;
  return { ok: true, discountAmount: applied.discountAmount, amount: applied.amount };
}

/**
 * What the sale of a paid checkout recorded: the amount its payment charged (the card's interest
 * included, as the dashboard's sale shows it: use-cases/schemas/sales.ts), its instalments and method;
 * null before.
 */
export async function paidCheckoutSale(
  em: EntityManager,
  checkoutId: string,
): Promise<{ amount: number; installments: number; paymentMethod: string } | null> {
  const sale = await paidSaleOfCheckout(em, checkoutId);
  if (!sale) return null;
  // A sale of nothing to charge has no transaction: its own amount is what was paid.
  const charged = sale.transactionId
    ? (await salePayments(em, [sale.transactionId])).get(sale.transactionId)
    : undefined;
  return {
    amount: Number(charged?.amount ?? sale.amount),
    installments: sale.installments,
    paymentMethod: sale.paymentMethod,
  };
}
