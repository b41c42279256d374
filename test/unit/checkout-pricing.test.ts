import { describe, expect, it } from '@jest/globals';
import { maxInstallments, priceCheckout, type CheckoutPricingInput } from '../../domain/checkout-pricing.ts';
import type { DiscountRule } from '../../domain/discounts.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const base: CheckoutPricingInput = {
  unitAmount: 4990,
  quantity: 1,
  customAmount: null,
  discount: null,
  currency: 'brl',
  productId: 'p1',
  now: NOW,
};
const percent = (basisPoints: number, extra: Partial<DiscountRule> = {}): DiscountRule => ({
  type: 'percentage',
  basisPoints,
  amount: null,
  currency: null,
  startsAt: null,
  endsAt: null,
  maxRedemptions: null,
  redemptionsCount: 0,
  productIds: [],
  ...extra,
});
const fixed = (amount: number, currency = 'brl'): DiscountRule => ({
  ...percent(1),
  type: 'fixed',
  basisPoints: null,
  amount,
  currency,
});

describe('priceCheckout', () => {
  it('charges unit amount × quantity', () => {
    expect(priceCheckout({ ...base, quantity: 3 })).toEqual({ subtotal: 14970, discountAmount: 0, amount: 14970 });
  });

  it('takes a percentage discount off the subtotal, rounded half up', () => {
    // 10 % of 3 × 335 = 100.5 → 101
    expect(priceCheckout({ ...base, unitAmount: 335, quantity: 3, discount: percent(1000) })).toEqual({
      subtotal: 1005,
      discountAmount: 101,
      amount: 904,
    });
  });

  it('caps a fixed discount at the subtotal, whatever the currency case', () => {
    expect(priceCheckout({ ...base, currency: 'BRL', discount: fixed(1000) })).toEqual({
      subtotal: 4990,
      discountAmount: 1000,
      amount: 3990,
    });
    expect(priceCheckout({ ...base, discount: fixed(10_000) })).toEqual({
      subtotal: 4990,
      discountAmount: 4990,
      amount: 0,
    });
  });

  it('refuses a discount that does not apply, with the reason', () => {
    expect(priceCheckout({ ...base, discount: percent(1000, { endsAt: NOW }) })).toEqual({
      error: 'discount_not_applicable',
      reason: 'ended',
    });
    expect(priceCheckout({ ...base, discount: percent(1000, { productIds: ['other'] }) })).toEqual({
      error: 'discount_not_applicable',
      reason: 'product_not_eligible',
    });
    expect(priceCheckout({ ...base, discount: fixed(100, 'usd') })).toEqual({
      error: 'discount_not_applicable',
      reason: 'currency_mismatch',
    });
    expect(priceCheckout({ ...base, discount: percent(1000, { maxRedemptions: 2, redemptionsCount: 2 }) })).toEqual({
      error: 'discount_not_applicable',
      reason: 'exhausted',
    });
  });

  it('needs the amount for a free-price product and refuses it for any other', () => {
    expect(priceCheckout({ ...base, unitAmount: 0 })).toEqual({ error: 'amount_required' });
    expect(priceCheckout({ ...base, unitAmount: 0, customAmount: 1500, quantity: 2 })).toEqual({
      subtotal: 3000,
      discountAmount: 0,
      amount: 3000,
    });
    expect(priceCheckout({ ...base, customAmount: 1500 })).toEqual({ error: 'amount_not_allowed' });
    expect(priceCheckout({ ...base, unitAmount: 0, customAmount: 0 })).toEqual({ error: 'invalid_amount' });
  });

  it('refuses a bad quantity and an overflowing total', () => {
    expect(priceCheckout({ ...base, quantity: 0 })).toEqual({ error: 'invalid_quantity' });
    expect(priceCheckout({ ...base, quantity: 1.5 })).toEqual({ error: 'invalid_quantity' });
    expect(priceCheckout({ ...base, unitAmount: Number.MAX_SAFE_INTEGER, quantity: 2 })).toEqual({
      error: 'amount_too_large',
    });
  });
});

describe('maxInstallments', () => {
  it.each([
    [{ type: 'one_time' as const, interval: null }, 12],
    [{ type: 'recurring' as const, interval: 'month' }, 1],
    [{ type: 'recurring' as const, interval: 'week' }, 1],
    [{ type: 'recurring' as const, interval: 'year' }, 12],
  ])('%p → %p', (price, expected) => {
    expect(maxInstallments(price)).toBe(expected);
  });
});
