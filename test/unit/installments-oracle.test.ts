import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DEFAULT_MONTHLY_RATE_BASIS_POINTS, installmentOptions, installmentPlan } from '../../domain/installments.ts';
import { exactPmt, Fraction, oraclePlan } from '../helpers/exact-installments.ts';

/**
 * domain/installments.ts held to an exact oracle (test/helpers/exact-installments.ts: BigInt
 * fractions, no floats). The rule both follow: one installment, no-fees installments or a zero rate
 * cost the base amount split evenly (remainder cents on the first installments); otherwise every
 * installment is the Price-table PMT rounded half up to the cent, never below the base amount / n
 * rounded up, and the total is n times it.
 */

/** The product's stated rate, 2.99% a month, written out here and never taken from the code under test. */
const STATED_RATE_BP = 299;

/** What the engine's callers (checkout options, the simulated gateway) pass to installmentPlan. */
const withInterest = { noFees: false, monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS };
const noFees = { noFees: true, monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS };
/** The same, as the oracle sees them. */
const statedWithInterest = { noFees: false, monthlyRateBasisPoints: STATED_RATE_BP };
const statedNoFees = { noFees: true, monthlyRateBasisPoints: STATED_RATE_BP };

const amount = fc.integer({ min: 1, max: 1_000_000_000 });
const count = fc.integer({ min: 1, max: 12 });

describe('the oracle itself', () => {
  it('computes PMT exactly for hand-worked cases', () => {
    // 10% a month on 100,00 in 2x: 10000·0.1 / (1 − 1/1.21) = 1000·1.21/0.21 = 121000/21 = 5761.90…
    expect(exactPmt(10_000, 2, 1_000).toString()).toBe('121000/21');
    // One month at 2.99%: P·r / (1 − 1/(1+r)) = P·(1 + r).
    expect(exactPmt(10_000, 1, 299).toString()).toBe('10299');
    // R$ 1.000,00 in 2x at 2.99%: 2990·1.0299² / (1.0299² − 1) = 2990·106069401/6069401, and
    // 6069401 = 299·20299, so 1060694010/20299 = 52253.9…
    expect(exactPmt(100_000, 2, 299).toString()).toBe('1060694010/20299');
    // R$ 1.000,00 in 12x at 2.99%: 10040.2124…
    const twelve = exactPmt(100_000, 12, 299);
    expect(twelve.compare(new Fraction(100_402_124n, 10_000n))).toBe(1);
    expect(twelve.compare(new Fraction(100_402_125n, 10_000n))).toBe(-1);
  });

  it('rounds a half up and anything below it down, exactly', () => {
    expect(new Fraction(5n, 2n).roundHalfUp()).toBe(3n);
    expect(new Fraction(4_999_999_999n, 2_000_000_000n).roundHalfUp()).toBe(2n);
    expect(new Fraction(7n, 3n).ceil()).toBe(3n);
    expect(new Fraction(6n, 3n).ceil()).toBe(2n);
  });
});

describe('installmentPlan against the exact oracle', () => {
  it.each([
    // base, n, each installment, total — worked out by hand from the exact PMT above.
    [100_000, 12, 10_040, 120_480],
    [100_000, 2, 52_254, 104_508],
    [9_990, 3, 3_531, 10_593],
    [12_345, 7, 1_981, 13_867],
    [250_000, 6, 46_134, 276_804],
  ])('charges %i cents in %ix at 2.99%% as installments of %i (total %i)', (base, n, each, total) => {
    const expected = { total, installmentAmounts: Array(n).fill(each) };
    expect(oraclePlan(base, n, statedWithInterest)).toEqual(expected);
    expect(installmentPlan(base, n, withInterest)).toEqual(expected);
  });

  it('splits without interest to the cent, the first installments carrying the remainder', () => {
    expect(installmentPlan(100_001, 3, noFees)).toEqual({
      total: 100_001,
      installmentAmounts: [33_334, 33_334, 33_333],
    });
    expect(installmentPlan(100_000, 1, withInterest)).toEqual({ total: 100_000, installmentAmounts: [100_000] });
    expect(oraclePlan(100_001, 3, statedNoFees)).toEqual(installmentPlan(100_001, 3, noFees));
  });

  it('never lets a few cents get cheaper by installments (1 cent in 12x is 12 × 1 cent)', () => {
    expect(installmentPlan(1, 12, withInterest)).toEqual({ total: 12, installmentAmounts: Array(12).fill(1) });
    expect(oraclePlan(1, 12, statedWithInterest)).toEqual(installmentPlan(1, 12, withInterest));
  });

  it('equals the oracle exactly, total and every installment, for 1 to 10^9 cents in 1 to 12 installments', () => {
    fc.assert(
      fc.property(amount, count, fc.boolean(), (base, n, nf) => {
        expect(installmentPlan(base, n, nf ? noFees : withInterest)).toEqual(
          oraclePlan(base, n, nf ? statedNoFees : statedWithInterest),
        );
      }),
      { numRuns: 3_000 },
    );
  });

  it('equals the oracle for small amounts, where the even-split floor matters', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5_000 }), count, (base, n) => {
        expect(installmentPlan(base, n, withInterest)).toEqual(oraclePlan(base, n, statedWithInterest));
      }),
      { numRuns: 2_000 },
    );
  });

  it('equals the oracle at other monthly rates too (0 to 10%)', () => {
    fc.assert(
      fc.property(amount, count, fc.integer({ min: 0, max: 1_000 }), (base, n, bp) => {
        const options = { noFees: false, monthlyRateBasisPoints: bp };
        expect(installmentPlan(base, n, options)).toEqual(oraclePlan(base, n, options));
      }),
      { numRuns: 1_000 },
    );
  });

  it('lists installment options equal to the oracle for every n', () => {
    fc.assert(
      fc.property(amount, fc.boolean(), (base, nf) => {
        const listed = installmentOptions(base, nf ? noFees : withInterest);
        const stated = nf ? statedNoFees : statedWithInterest;
        expect(listed).toEqual(
          Array.from({ length: 12 }, (_, k) => ({ installments: k + 1, ...oraclePlan(base, k + 1, stated) })),
        );
      }),
      { numRuns: 300 },
    );
  });

  /**
   * The amounts whose exact PMT lies a hair above x.5 cents (by 10^-8 or so): a floating-point PMT
   * lands below x.5 and rounds down, one cent short per installment. A scan of every amount 1..10^9
   * at 2.99% found 1 133 such (amount, n) pairs, all above R$ 200.000; these are the smallest for each
   * n. The implementation computes PMT in exact integers since.
   */
  const nearHalf: [number, number][] = [
    [50_276_202, 2],
    [20_933_241, 3],
    [88_960_243, 4],
    [32_450_287, 5],
    [62_485_387, 6],
    [158_653_899, 7],
    [63_697_262, 8],
    [104_773_735, 9],
    [95_752_144, 10],
    [82_055_581, 11],
    [44_477_480, 12],
  ];

  it.each(nearHalf)('rounds up %i cents in %ix, whose exact PMT is a hair above a half cent', (base, n) => {
    const exact = exactPmt(base, n, STATED_RATE_BP);
    const half = new Fraction(exact.floor() * 2n + 1n, 2n);
    expect(exact.compare(half)).toBe(1);
    expect(exact.sub(half).compare(new Fraction(1n, 10_000_000n))).toBe(-1);
    expect(oraclePlan(base, n, statedWithInterest).installmentAmounts[0]).toBe(Number(exact.floor()) + 1);
  });

  it.each(nearHalf)('the implementation rounds %i cents in %ix up, as the oracle does', (base, n) => {
    expect(installmentPlan(base, n, withInterest)).toEqual(oraclePlan(base, n, statedWithInterest));
  });
});
