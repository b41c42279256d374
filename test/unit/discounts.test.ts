import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  discountAmount,
  discountApplicability,
  hasRedemptionsLeft,
  maxRedemptionsRefusal,
  type DiscountRule,
} from '../../domain/discounts.ts';

const PRODUCT = '0190a000-0000-7000-8000-000000000001';
const OTHER_PRODUCT = '0190a000-0000-7000-8000-000000000002';

function percentage(basisPoints: number, extra: Partial<DiscountRule> = {}): DiscountRule {
  return {
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
  };
}

function fixed(amount: number, currency = 'brl', extra: Partial<DiscountRule> = {}): DiscountRule {
  return { ...percentage(1), type: 'fixed', basisPoints: null, amount, currency, ...extra };
}

describe('discountAmount', () => {
  it.each([
    [10_000, 1000, 1000],
    [1005, 1000, 101], // 100.5 → 101: half up
    [1004, 1000, 100], // 100.4 → 100
    [999, 1, 0], // 0.0999 → 0
    [50, 100, 1], // 0.5 → 1
    [49, 100, 0], // 0.49 → 0
    [2990, 2500, 748], // 747.5 → 748
    [2990, 10_000, 2990],
    [1, 10_000, 1],
    [0, 5000, 0],
  ])('takes %p × %p bp / 10000, rounded half up, off the subtotal → %p', (subtotal, bp, expected) => {
    expect(discountAmount(subtotal, 'BRL', percentage(bp))).toBe(expected);
  });

  it('stays exact for subtotals where a float product would lose cents', () => {
    const subtotal = 9_007_199_254_740_991; // Number.MAX_SAFE_INTEGER
    // 9007199254740991 × 3333 / 10000 = 3002099511605172.3… → 3002099511605172
    expect(discountAmount(subtotal, 'brl', percentage(3333))).toBe(3_002_099_511_605_172);
  });

  it('takes a fixed amount, capped at the subtotal', () => {
    expect(discountAmount(5000, 'brl', fixed(1500))).toBe(1500);
    expect(discountAmount(1000, 'brl', fixed(1500))).toBe(1000);
    expect(discountAmount(1500, 'brl', fixed(1500))).toBe(1500);
  });

  it('compares currencies case-insensitively (prices lower-case, checkouts upper-case)', () => {
    expect(discountAmount(5000, 'BRL', fixed(1500, 'brl'))).toBe(1500);
    expect(discountAmount(5000, 'brl', fixed(1500, 'BRL'))).toBe(1500);
  });

  it('takes nothing off with a fixed discount in another currency', () => {
    expect(discountAmount(5000, 'USD', fixed(1500, 'brl'))).toBe(0);
    expect(discountAmount(5000, 'BRL', fixed(1500, 'brl', { currency: null }))).toBe(0);
  });

  it('ignores the currency for a percentage discount', () => {
    expect(discountAmount(5000, 'USD', percentage(1000, { currency: 'brl' }))).toBe(500);
  });

  it('never takes anything off an empty or invalid subtotal', () => {
    expect(discountAmount(0, 'brl', fixed(100))).toBe(0);
    expect(discountAmount(-100, 'brl', percentage(5000))).toBe(0);
    expect(discountAmount(10.5, 'brl', percentage(5000))).toBe(0);
  });

  it('treats a broken rule (no basis points, no amount) as no discount', () => {
    expect(discountAmount(1000, 'brl', percentage(1, { basisPoints: null }))).toBe(0);
    expect(discountAmount(1000, 'brl', fixed(1, 'brl', { amount: null }))).toBe(0);
  });

  const subtotal = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
  const rule = fc.oneof(
    fc.integer({ min: 1, max: 10_000 }).map((bp) => percentage(bp)),
    fc
      .tuple(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom('brl', 'usd', 'BRL'))
      .map(([amount, currency]) => fixed(amount, currency)),
  );
  const currency = fc.constantFrom('brl', 'BRL', 'usd', 'eur');

  it('property: the discount is an integer between 0 and the subtotal', () => {
    fc.assert(
      fc.property(subtotal, currency, rule, (s, c, r) => {
        const d = discountAmount(s, c, r);
        expect(Number.isSafeInteger(d)).toBe(true);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(s);
      }),
    );
  });

  it('property: 100 % takes the whole subtotal off', () => {
    fc.assert(
      fc.property(subtotal, currency, (s, c) => {
        expect(discountAmount(s, c, percentage(10_000))).toBe(s);
      }),
    );
  });

  it('property: a percentage is within half a cent of the exact value and never decreases with the subtotal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000 }), fc.integer({ min: 1, max: 10_000 }), (s, bp) => {
        const d = discountAmount(s, 'brl', percentage(bp));
        // 2·|d − s·bp/10000| ≤ 1, in integers: |20000·d − 2·s·bp| ≤ 10000.
        expect(Math.abs(20_000 * d - 2 * s * bp)).toBeLessThanOrEqual(10_000);
        expect(discountAmount(s + 1, 'brl', percentage(bp))).toBeGreaterThanOrEqual(d);
      }),
    );
  });
});

describe('max_redemptions', () => {
  it('leaves redemptions while the count is under the cap, always without one', () => {
    expect(hasRedemptionsLeft({ maxRedemptions: 3, redemptionsCount: 2 })).toBe(true);
    expect(hasRedemptionsLeft({ maxRedemptions: 3, redemptionsCount: 3 })).toBe(false);
    expect(hasRedemptionsLeft({ maxRedemptions: 0, redemptionsCount: 0 })).toBe(false);
    expect(hasRedemptionsLeft({ maxRedemptions: null, redemptionsCount: 1_000_000 })).toBe(true);
  });

  it('may be lowered to the redemptions made, not below them', () => {
    expect(maxRedemptionsRefusal(5, 5)).toBeNull();
    expect(maxRedemptionsRefusal(null, 5)).toBeNull();
    expect(maxRedemptionsRefusal(undefined, 5)).toBeNull();
    expect(maxRedemptionsRefusal(4, 5)).toEqual({
      code: 'max_redemptions_below_redemptions',
      message: 'max_redemptions cannot be lower than redemptions_count',
      detail: 'The discount was already redeemed 5 times',
    });
  });
});

describe('discountApplicability', () => {
  const now = new Date('2025-06-15T12:00:00.000Z');
  const ctx = { productId: PRODUCT, currency: 'BRL', now };

  it('applies an open-ended, unrestricted discount', () => {
    expect(discountApplicability(percentage(1000), ctx)).toEqual({ ok: true });
    expect(discountApplicability(fixed(100), ctx)).toEqual({ ok: true });
  });

  it('is not started before starts_at, and is from starts_at on', () => {
    const rule = percentage(1000, { startsAt: new Date('2025-06-15T12:00:00.001Z') });
    expect(discountApplicability(rule, ctx)).toEqual({ ok: false, reason: 'not_started' });
    expect(discountApplicability({ ...rule, startsAt: now }, ctx)).toEqual({ ok: true });
  });

  it('has ended at ends_at (exclusive)', () => {
    expect(discountApplicability(percentage(1000, { endsAt: now }), ctx)).toEqual({ ok: false, reason: 'ended' });
    expect(discountApplicability(percentage(1000, { endsAt: new Date('2025-06-15T12:00:00.001Z') }), ctx)).toEqual({
      ok: true,
    });
  });

  it('is exhausted when redemptions reached max_redemptions', () => {
    expect(discountApplicability(percentage(1000, { maxRedemptions: 3, redemptionsCount: 3 }), ctx)).toEqual({
      ok: false,
      reason: 'exhausted',
    });
    expect(discountApplicability(percentage(1000, { maxRedemptions: 3, redemptionsCount: 2 }), ctx)).toEqual({
      ok: true,
    });
    expect(discountApplicability(percentage(1000, { maxRedemptions: null, redemptionsCount: 10_000 }), ctx)).toEqual({
      ok: true,
    });
  });

  it('applies only to the listed products when product_ids is not empty', () => {
    const rule = percentage(1000, { productIds: [OTHER_PRODUCT] });
    expect(discountApplicability(rule, ctx)).toEqual({ ok: false, reason: 'product_not_eligible' });
    expect(discountApplicability({ ...rule, productIds: [OTHER_PRODUCT, PRODUCT] }, ctx)).toEqual({ ok: true });
  });

  it('refuses a fixed discount in another currency, case-insensitively', () => {
    expect(discountApplicability(fixed(100, 'usd'), ctx)).toEqual({ ok: false, reason: 'currency_mismatch' });
    expect(discountApplicability(fixed(100, 'brl'), { ...ctx, currency: 'brl' })).toEqual({ ok: true });
    expect(discountApplicability(percentage(100, { currency: 'usd' }), ctx)).toEqual({ ok: true });
  });

  it('gives the first failing reason in a fixed order', () => {
    const everythingWrong = fixed(100, 'usd', {
      startsAt: new Date('2026-01-01T00:00:00Z'),
      endsAt: new Date('2025-01-01T00:00:00Z'),
      maxRedemptions: 1,
      redemptionsCount: 1,
      productIds: [OTHER_PRODUCT],
    });
    expect(discountApplicability(everythingWrong, ctx)).toEqual({ ok: false, reason: 'not_started' });
    expect(discountApplicability({ ...everythingWrong, startsAt: null }, ctx)).toEqual({ ok: false, reason: 'ended' });
    expect(discountApplicability({ ...everythingWrong, startsAt: null, endsAt: null }, ctx)).toEqual({
      ok: false,
      reason: 'exhausted',
    });
    expect(
      discountApplicability({ ...everythingWrong, startsAt: null, endsAt: null, maxRedemptions: null }, ctx),
    ).toEqual({ ok: false, reason: 'product_not_eligible' });
    expect(
      discountApplicability(
        { ...everythingWrong, startsAt: null, endsAt: null, maxRedemptions: null, productIds: [] },
        ctx,
      ),
    ).toEqual({ ok: false, reason: 'currency_mismatch' });
  });
});
