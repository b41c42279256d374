import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  applyBalance,
  planChangeSettlement,
  prorationAmount,
  prorationBehaviorOf,
  settleProration,
} from '../../domain/proration.ts';

/**
 * Proration against an independent oracle: exact rational arithmetic (numerator and denominator as
 * BigInt), never the formula under test. A result is right when it is within half a cent of the
 * exact value, and ties go away from zero.
 */
const DAY = 86_400_000;
const period = { start: new Date('2026-01-31T10:00:00Z'), end: new Date('2026-02-28T10:00:00Z') };
const length = period.end.getTime() - period.start.getTime();

/** |2·result·length − 2·d·left| ≤ length: within half a cent of d·left/length. */
function withinHalfCent(result: number, d: number, left: number): boolean {
  const err = 2n * BigInt(result) * BigInt(length) - 2n * BigInt(d) * BigInt(left);
  return (err < 0n ? -err : err) <= BigInt(length);
}

const cents = fc.integer({ min: 0, max: 100_000_000 });
const instant = fc.integer({ min: 0, max: length });

describe('prorationAmount', () => {
  it('worked examples: half a period left, a quarter, nothing, everything', () => {
    const mid = new Date(period.start.getTime() + length / 2);
    expect(prorationAmount(9_900, 19_900, period, mid)).toBe(5_000);
    expect(prorationAmount(19_900, 9_900, period, mid)).toBe(-5_000);
    expect(prorationAmount(1_000, 2_000, period, new Date(period.start.getTime() + (3 * length) / 4))).toBe(250);
    expect(prorationAmount(1_000, 2_000, period, period.end)).toBe(0);
    expect(prorationAmount(1_000, 2_000, period, new Date(period.end.getTime() + DAY))).toBe(0);
    expect(prorationAmount(1_000, 2_000, period, period.start)).toBe(1_000);
    // 1 cent over 3 equal parts, one part left: 1/3 rounds to 0; two parts left: 2/3 rounds to 1.
    const thirds = { start: new Date(0), end: new Date(3 * DAY) };
    expect(prorationAmount(0, 1, thirds, new Date(2 * DAY))).toBe(0);
    expect(prorationAmount(0, 1, thirds, new Date(DAY))).toBe(1);
    // A tie (half a cent) goes away from zero, either way.
    const halves = { start: new Date(0), end: new Date(2 * DAY) };
    expect(prorationAmount(0, 1, halves, new Date(DAY))).toBe(1);
    expect(prorationAmount(1, 0, halves, new Date(DAY))).toBe(-1);
  });

  it('is within half a cent of the exact value, and never more than the difference', () => {
    fc.assert(
      fc.property(cents, cents, instant, (from, to, t) => {
        const result = prorationAmount(from, to, period, new Date(period.start.getTime() + t));
        return withinHalfCent(result, to - from, length - t) && Math.abs(result) <= Math.abs(to - from);
      }),
    );
  });

  it('an upgrade then a downgrade back never creates money; at the same instant they cancel out', () => {
    fc.assert(
      fc.property(cents, cents, instant, instant, (a, b, t1, t2) => {
        const [first, second] = [Math.min(t1, t2), Math.max(t1, t2)];
        const at = (t: number) => new Date(period.start.getTime() + t);
        const there = prorationAmount(a, b, period, at(first));
        const back = prorationAmount(b, a, period, at(second));
        if (first === second && there + back !== 0) return false;
        // Owed for the cheaper-or-dearer plan while it was held: the same sign as b − a, or zero.
        return Math.sign(there + back) * Math.sign(b - a) >= 0;
      }),
    );
  });

  it('refuses negative or fractional amounts and empty periods', () => {
    expect(() => prorationAmount(-1, 10, period, period.start)).toThrow(RangeError);
    expect(() => prorationAmount(1.5, 10, period, period.start)).toThrow(RangeError);
    expect(() => prorationAmount(1, 10, { start: period.end, end: period.end }, period.end)).toThrow(RangeError);
  });
});

describe('the proration behavior', () => {
  it("is the organization's choice, and prorate when it made none", () => {
    expect(prorationBehaviorOf({ proration_behavior: 'invoice' })).toBe('invoice');
    expect(prorationBehaviorOf({ proration_behavior: 'none' })).toBe('none');
    expect(prorationBehaviorOf({})).toBe('prorate');
    expect(prorationBehaviorOf(null)).toBe('prorate');
  });

  it('is prorate when the stored settings hold a value that is not a behavior', () => {
    expect(prorationBehaviorOf({ proration_behavior: 'sometimes' })).toBe('prorate');
    expect(prorationBehaviorOf({ proration_behavior: 1 })).toBe('prorate');
  });
});

describe('settleProration and applyBalance', () => {
  it('prorate charges what is owed now and keeps a credit; invoice defers both; none settles nothing', () => {
    expect(settleProration('prorate', 500)).toEqual({ chargeNow: 500, toBalance: 0 });
    expect(settleProration('prorate', -500)).toEqual({ chargeNow: 0, toBalance: -500 });
    expect(settleProration('invoice', 500)).toEqual({ chargeNow: 0, toBalance: 500 });
    expect(settleProration('invoice', -500)).toEqual({ chargeNow: 0, toBalance: -500 });
    expect(settleProration('none', 500)).toEqual({ chargeNow: 0, toBalance: 0 });
  });

  it('a renewal takes what is owed and spends a credit, carrying what is left of it', () => {
    expect(applyBalance(9_900, 0)).toEqual({ charge: 9_900, balanceAfter: 0 });
    expect(applyBalance(9_900, 500)).toEqual({ charge: 10_400, balanceAfter: 0 });
    expect(applyBalance(9_900, -500)).toEqual({ charge: 9_400, balanceAfter: 0 });
    expect(applyBalance(9_900, -12_000)).toEqual({ charge: 0, balanceAfter: -2_100 });
    fc.assert(
      fc.property(cents, fc.integer({ min: -100_000_000, max: 100_000_000 }), (amount, balance) => {
        const { charge, balanceAfter } = applyBalance(amount, balance);
        // Nothing is lost or made: what is charged plus what is carried is what was due.
        return charge >= 0 && balanceAfter <= 0 && charge + balanceAfter === amount + balance;
      }),
    );
  });
});

describe('planChangeSettlement (the plan change the workflow makes and the portal previews)', () => {
  const mid = new Date(period.start.getTime() + length / 2);
  const change = { behavior: 'prorate' as const, trialing: false, from: 9_900, to: 19_900, period, at: mid };

  it('charges an upgrade now to a saved card, and leaves it for the next renewal without one', () => {
    expect(planChangeSettlement({ ...change, savedCard: true })).toEqual({
      prorated: 5_000,
      chargeNow: 5_000,
      toBalance: 0,
    });
    expect(planChangeSettlement({ ...change, savedCard: false })).toEqual({
      prorated: 5_000,
      chargeNow: 0,
      toBalance: 5_000,
    });
  });

  it('credits a downgrade, prorates nothing in a trial, and follows the behavior', () => {
    expect(planChangeSettlement({ ...change, from: 19_900, to: 9_900, savedCard: true })).toEqual({
      prorated: -5_000,
      chargeNow: 0,
      toBalance: -5_000,
    });
    expect(planChangeSettlement({ ...change, trialing: true, savedCard: true })).toEqual({
      prorated: 0,
      chargeNow: 0,
      toBalance: 0,
    });
    expect(planChangeSettlement({ ...change, behavior: 'invoice', savedCard: true })).toEqual({
      prorated: 5_000,
      chargeNow: 0,
      toBalance: 5_000,
    });
    expect(planChangeSettlement({ ...change, behavior: 'none', savedCard: true })).toEqual({
      prorated: 5_000,
      chargeNow: 0,
      toBalance: 0,
    });
  });
});
