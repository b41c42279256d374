import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DEFAULT_MONTHLY_RATE_BASIS_POINTS, installmentOptions, installmentPlan } from '../../domain/installments.ts';

const withInterest = { noFees: false, monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS };
const noFees = { noFees: true, monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS };

/** The textbook Price-table installment, in floating point, as an independent cross-check. */
const pricePmt = (p: number, rate: number, n: number) => (p * rate) / (1 - Math.pow(1 + rate, -n));

describe('installmentPlan', () => {
  it('charges R$ 1.000,00 in 12x at 2.99% a month as 12 × R$ 100,40 = R$ 1.204,80', () => {
    const plan = installmentPlan(100_000, 12, withInterest);
    expect(plan).toEqual({ total: 120_480, installmentAmounts: Array(12).fill(10_040) });
    expect(Math.round(pricePmt(100_000, 0.0299, 12))).toBe(10_040);
  });

  it.each([
    [100_000, 2, 52_254, 104_508],
    [9_990, 3, 3_531, 10_593],
    [12_345, 7, 1_981, 13_867],
    [250_000, 6, 46_134, 276_804],
  ])('charges %i cents in %ix as installments of %i (total %i)', (base, n, each, total) => {
    const plan = installmentPlan(base, n, withInterest);
    expect(plan.total).toBe(total);
    expect(plan.installmentAmounts).toEqual(Array(n).fill(each));
    expect(Math.floor(pricePmt(base, 0.0299, n) + 0.5)).toBe(each);
  });

  it('charges the base amount for one installment, split evenly when the seller absorbs the fees', () => {
    expect(installmentPlan(100_000, 1, withInterest)).toEqual({ total: 100_000, installmentAmounts: [100_000] });
    expect(installmentPlan(100_001, 3, noFees)).toEqual({
      total: 100_001,
      installmentAmounts: [33_334, 33_334, 33_333],
    });
    expect(installmentPlan(100_000, 12, { noFees: false, monthlyRateBasisPoints: 0 }).total).toBe(100_000);
  });

  it('never makes a few cents cheaper by installments', () => {
    expect(installmentPlan(1, 12, withInterest)).toEqual({ total: 12, installmentAmounts: Array(12).fill(1) });
  });

  it.each([0, 13, 1.5, -1])('refuses %p installments', (n) => {
    expect(() => installmentPlan(1000, n, withInterest)).toThrow(RangeError);
  });

  it('refuses a negative or fractional amount', () => {
    expect(() => installmentPlan(-1, 2, withInterest)).toThrow(RangeError);
    expect(() => installmentPlan(10.5, 2, withInterest)).toThrow(RangeError);
  });

  const amount = fc.integer({ min: 0, max: 10_000_000_000 });
  const count = fc.integer({ min: 1, max: 12 });
  const rate = fc.integer({ min: 0, max: 1000 });

  it('has n parts that add up exactly to the total', () => {
    fc.assert(
      fc.property(amount, count, rate, fc.boolean(), (base, n, bp, nf) => {
        const plan = installmentPlan(base, n, { noFees: nf, monthlyRateBasisPoints: bp });
        expect(plan.installmentAmounts).toHaveLength(n);
        expect(plan.installmentAmounts.reduce((a, b) => a + b, 0)).toBe(plan.total);
        expect(plan.installmentAmounts.every((x) => Number.isSafeInteger(x) && x >= 0)).toBe(true);
      }),
    );
  });

  it('costs exactly the base amount without fees, and at least the base amount with interest', () => {
    fc.assert(
      fc.property(amount, count, rate, (base, n, bp) => {
        expect(installmentPlan(base, n, { noFees: true, monthlyRateBasisPoints: bp }).total).toBe(base);
        expect(installmentPlan(base, n, { noFees: false, monthlyRateBasisPoints: bp }).total).toBeGreaterThanOrEqual(
          base,
        );
      }),
    );
  });

  it('costs more the more installments the buyer takes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10_000, max: 10_000_000 }), fc.integer({ min: 1, max: 11 }), (base, n) => {
        expect(installmentPlan(base, n + 1, withInterest).total).toBeGreaterThanOrEqual(
          installmentPlan(base, n, withInterest).total,
        );
      }),
    );
  });
});

describe('installmentOptions', () => {
  it('lists 1 to 12 installments with their totals', () => {
    const options = installmentOptions(100_000, withInterest);
    expect(options.map((o) => o.installments)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(options[0]).toEqual({ installments: 1, total: 100_000, installmentAmounts: [100_000] });
    expect(options[1]!.total).toBe(104_508);
    expect(options[11]!.total).toBe(120_480);
  });

  it('stops at the given maximum and lists the base amount throughout without fees', () => {
    const options = installmentOptions(5_000, noFees, 3);
    expect(options.map((o) => [o.installments, o.total])).toEqual([
      [1, 5_000],
      [2, 5_000],
      [3, 5_000],
    ]);
  });
});
