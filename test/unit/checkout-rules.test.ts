import { describe, expect, it } from '@jest/globals';
import {
  allowsMultipleSubscriptions,
  applyDiscountCode,
  checkoutTransition,
  discountCarriesOverToRenewal,
  firstSubscriptionPeriod,
  limitedToOneSubscription,
  paymentKey,
  requiresCharge,
  successUrlFor,
  type CheckoutChange,
  type CheckoutStatus,
} from '../../domain/checkout.ts';
import { customAmountOnReprice } from '../../domain/checkout-pricing.ts';
import type { DiscountRule } from '../../domain/discounts.ts';

const now = new Date('2026-01-31T12:00:00Z');
const checkout = {
  allowDiscountCodes: true,
  discountId: null,
  subtotalAmount: 10_050,
  productId: 'p1',
  currency: 'BRL',
};
const percent = (basisPoints: number, extra: Partial<DiscountRule> = {}) => ({
  id: 'd1',
  type: 'percentage' as const,
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

describe('the checkout lifecycle', () => {
  const statuses: CheckoutStatus[] = ['open', 'confirmed', 'succeeded', 'failed', 'expired'];
  const changes: CheckoutChange[] = ['confirm', 'refuse', 'fail', 'pay', 'expire'];
  // DESIGN.md's diagram, written out: every (status, change) pair not listed does not apply.
  const allowed: Record<string, CheckoutStatus> = {
    'open confirm': 'confirmed',
    'open expire': 'expired',
    'confirmed refuse': 'open',
    'confirmed fail': 'failed',
    'confirmed pay': 'succeeded',
  };

  it('moves open → confirmed → succeeded | failed, back to open on a refusal, open → expired', () => {
    for (const status of statuses) {
      for (const change of changes) {
        expect([status, change, checkoutTransition(status, change)]).toEqual([
          status,
          change,
          allowed[`${status} ${change}`] ?? null,
        ]);
      }
    }
  });

  it('never leaves an ended checkout', () => {
    for (const ended of ['succeeded', 'failed', 'expired'] as const) {
      expect(changes.map((change) => checkoutTransition(ended, change))).toEqual(changes.map(() => null));
    }
  });
});

describe('a discount code at payment time', () => {
  it('takes the discount off the subtotal, half a cent going to the buyer', () => {
    // 10 % of 100,50 is 10,05 exactly; 15 % is 15,075, rounded half up to 15,08.
    expect(applyDiscountCode(checkout, percent(1000), now)).toEqual({
      ok: true,
      discountId: 'd1',
      discountAmount: 1005,
      amount: 9045,
      changed: true,
    });
    expect(applyDiscountCode(checkout, percent(1500), now)).toMatchObject({ discountAmount: 1508, amount: 8542 });
  });

  it('may bring the total to zero, which is not charged', () => {
    const free = applyDiscountCode(checkout, percent(10_000), now);
    expect(free).toMatchObject({ ok: true, amount: 0 });
    expect(requiresCharge(0)).toBe(false);
    expect(requiresCharge(1)).toBe(true);
  });

  it('refuses with one stable reason', () => {
    expect(applyDiscountCode({ ...checkout, allowDiscountCodes: false }, percent(1000), now)).toEqual({
      ok: false,
      reason: 'discount_codes_not_allowed',
    });
    expect(applyDiscountCode(checkout, null, now)).toEqual({ ok: false, reason: 'discount_not_found' });
    expect(applyDiscountCode({ ...checkout, discountId: 'other' }, percent(1000), now)).toEqual({
      ok: false,
      reason: 'discount_already_applied',
    });
    expect(applyDiscountCode(checkout, percent(1000, { endsAt: now }), now)).toEqual({ ok: false, reason: 'ended' });
  });

  it('the code the checkout already carries changes nothing', () => {
    expect(applyDiscountCode({ ...checkout, discountId: 'd1' }, percent(1000), now)).toMatchObject({
      ok: true,
      changed: false,
      amount: 9045,
    });
  });
});

describe('renewals and periods', () => {
  it('only a forever discount carries over to a renewal checkout', () => {
    expect(discountCarriesOverToRenewal({ duration: 'forever' })).toBe(true);
    expect(discountCarriesOverToRenewal({ duration: 'once' })).toBe(false);
    expect(discountCarriesOverToRenewal({ duration: 'repeating' })).toBe(false);
  });

  it('a first period is a trial when there is one, else one interval clamped to the month', () => {
    expect(firstSubscriptionPeriod({ interval: 'month', intervalCount: 1 }, null, now)).toEqual({
      status: 'active',
      periodEnd: new Date('2026-02-28T12:00:00Z'),
      trialEnd: null,
    });
    expect(firstSubscriptionPeriod({ interval: 'year', intervalCount: 1 }, { interval: 'day', count: 7 }, now)).toEqual(
      {
        status: 'trialing',
        periodEnd: new Date('2026-02-07T12:00:00Z'),
        trialEnd: new Date('2026-02-07T12:00:00Z'),
      },
    );
  });
});

describe('keys and re-pricing', () => {
  it('a payment key names the checkout, the method and the slot, never an attempt', () => {
    expect(paymentKey('c1', 'credit_card', 2)).toBe('checkout:c1:charge:2');
    expect(paymentKey('c1', 'pix', 1)).toBe('checkout:c1:pix:1');
    expect(paymentKey('c1', 'boleto', 3)).toBe('checkout:c1:boleto:3');
  });

  it('a free-price checkout keeps its buyer-chosen unit amount when re-priced', () => {
    expect(customAmountOnReprice(0, { subtotalAmount: 3_000, quantity: 3 })).toBe(1_000);
    expect(customAmountOnReprice(2_500, { subtotalAmount: 5_000, quantity: 2 })).toBeNull();
  });
});

describe('one subscription per customer (allow_multiple_subscriptions)', () => {
  it('is the rule unless the organization set it true; a missing or malformed setting is false', () => {
    expect(allowsMultipleSubscriptions({ allow_multiple_subscriptions: true })).toBe(true);
    expect(allowsMultipleSubscriptions({ allow_multiple_subscriptions: false })).toBe(false);
    for (const settings of [{}, null, undefined, { allow_multiple_subscriptions: 'yes' }]) {
      expect(allowsMultipleSubscriptions(settings)).toBe(false);
    }
  });

  it('holds only a new recurring sale: never a one-time price or a renewal of the same subscription', () => {
    const sale = { allowMultiple: false, recurring: true, renewal: false };
    expect(limitedToOneSubscription(sale)).toBe(true);
    expect(limitedToOneSubscription({ ...sale, allowMultiple: true })).toBe(false);
    expect(limitedToOneSubscription({ ...sale, recurring: false })).toBe(false);
    expect(limitedToOneSubscription({ ...sale, renewal: true })).toBe(false);
  });
});

describe('successUrlFor', () => {
  it('puts the checkout id wherever {CHECKOUT_ID} stands, and leaves any other URL alone', () => {
    const id = '01936d2e-8a5b-7c3d-9e4f-0123456789ab';
    expect(successUrlFor('https://shop.example.com/ok?checkout={CHECKOUT_ID}&again={CHECKOUT_ID}', id)).toBe(
      `https://shop.example.com/ok?checkout=${id}&again=${id}`,
    );
    expect(successUrlFor('https://shop.example.com/thanks', id)).toBe('https://shop.example.com/thanks');
  });
});
