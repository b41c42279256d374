/**
 * What a checkout charges: unit amount (the price's, or the buyer-chosen amount of a free-price product)
 * × quantity, less the pre-applied discount. Pure: the clock comes in as `now`.
 */
import { discountAmount, discountApplicability, type DiscountInapplicability, type DiscountRule } from './discounts.ts';
import { MAX_INSTALLMENTS, multiplyAmount } from './money.ts';

export interface CheckoutPricingInput {
  /** The price's unit_amount; 0 marks a free-price (pay what you want) one_time price. */
  unitAmount: number;
  quantity: number;
  /** The body's `amount`: required for a free-price product, refused for any other. */
  customAmount: number | null;
  discount: DiscountRule | null;
  /** Any case: prices are lower case, checkouts upper case. */
  currency: string;
  productId: string;
  now: Date;
}

export interface CheckoutPrice {
  subtotal: number;
  discountAmount: number;
  amount: number;
}

export type CheckoutPricingError =
  | { error: 'amount_required' }
  | { error: 'amount_not_allowed' }
  | { error: 'invalid_amount' }
  | { error: 'invalid_quantity' }
  | { error: 'amount_too_large' }
  | { error: 'discount_not_applicable'; reason: DiscountInapplicability };

export function priceCheckout(input: CheckoutPricingInput): CheckoutPrice | CheckoutPricingError {
  if (!Number.isSafeInteger(input.quantity) || input.quantity < 1) return { error: 'invalid_quantity' };
  const freePrice = input.unitAmount === 0;
  if (freePrice && input.customAmount === null) return { error: 'amount_required' };
  if (!freePrice && input.customAmount !== null) return { error: 'amount_not_allowed' };
  const unit = input.customAmount ?? input.unitAmount;
  if (!Number.isSafeInteger(unit) || unit < 1) return { error: 'invalid_amount' };

  let subtotal: number;
  try {
    subtotal = multiplyAmount(unit, input.quantity);
  } catch {
    return { error: 'amount_too_large' };
  }

  if (!input.discount) return { subtotal, discountAmount: 0, amount: subtotal };
  const applicable = discountApplicability(input.discount, {
    productId: input.productId,
    currency: input.currency,
    now: input.now,
  });
  if (!applicable.ok) return { error: 'discount_not_applicable', reason: applicable.reason };
  const off = discountAmount(subtotal, input.currency, input.discount);
  return { subtotal, discountAmount: off, amount: subtotal - off };
}

export function isPricingError(result: CheckoutPrice | CheckoutPricingError): result is CheckoutPricingError {
  return 'error' in result;
}

/**
 * Installments a checkout may offer. The spec allows 1 to 12 for credit, and only 1 for a monthly
 * recurring subscription; a subscription billed more often than yearly is charged whole each period
 * (splitting a period's charge over months it does not cover would overlap the next renewal), so every
 * recurring price but a yearly one gets 1.
 */
export function maxInstallments(price: { type: 'one_time' | 'recurring'; interval?: string | null }): number {
  if (price.type === 'recurring' && price.interval !== 'year') return 1;
  return MAX_INSTALLMENTS;
}

/**
 * The `customAmount` to price an open checkout again with (a new quantity or discount): a
 * free-price checkout keeps the unit amount its buyer was offered; any other takes the price's.
 */
export function customAmountOnReprice(
  priceUnitAmount: number,
  checkout: { subtotalAmount: number; quantity: number },
): number | null {
  return priceUnitAmount === 0 ? checkout.subtotalAmount / checkout.quantity : null;
}
