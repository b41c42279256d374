import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { PeriodInterval } from '../../domain/periods.ts';
import {
  dunningRetryAt,
  nextRenewalChargeAt,
  renewalCheckoutDeadline,
  tryAfterRefusal,
  isHardDecline,
  periodBounds,
  renewalAmount,
  renewalChargeKey,
  renewalDelayMs,
  SUBSCRIPTION_STATUSES,
  subscriptionHasEnded,
  transition,
  type SubscriptionStatus,
} from '../../domain/subscriptions.ts';

const at = (iso: string) => new Date(iso);
const DAY = 86_400_000;

/**
 * The oracle of a period boundary, written apart from domain/periods.ts: the calendar month `k`
 * months after the anchor's, on the anchor's day of the month or that month's last day, whichever
 * comes first, at the anchor's time of day.
 */
function oracleMonthsLater(anchor: Date, k: number): Date {
  const monthIndex = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + k;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex % 12;
  const daysInMonth = [
    31,
    year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28,
    31,
    30,
    31,
    30,
    31,
    31,
    30,
    31,
    30,
    31,
  ][month]!;
  const day = Math.min(anchor.getUTCDate(), daysInMonth);
  const timeOfDay = anchor.getTime() - Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth(), anchor.getUTCDate());
  return new Date(Date.UTC(year, month, day) + timeOfDay);
}

const anchors = fc.date({ min: at('2000-01-01T00:00:00Z'), max: at('2099-12-31T23:59:59Z'), noInvalidDate: true });

describe('subscription periods', () => {
  it('counts every boundary from the anchor: 31 January renews on 28 February and again on 31 March', () => {
    const monthly = { interval: 'month' as const, intervalCount: 1 };
    const anchor = at('2026-01-31T09:00:00Z');
    expect(periodBounds(anchor, monthly, 1)).toEqual({ start: anchor, end: at('2026-02-28T09:00:00Z') });
    expect(periodBounds(anchor, monthly, 2)).toEqual({
      start: at('2026-02-28T09:00:00Z'),
      end: at('2026-03-31T09:00:00Z'),
    });
    expect(periodBounds(anchor, monthly, 13).start).toEqual(at('2027-01-31T09:00:00Z'));
    expect(periodBounds(at('2028-02-29T00:00:00Z'), { interval: 'year', intervalCount: 1 }, 2).start).toEqual(
      at('2029-02-28T00:00:00Z'),
    );
    expect(() => periodBounds(anchor, monthly, 0)).toThrow(RangeError);
  });

  it('months and years land where the calendar oracle says, for any anchor and period', () => {
    fc.assert(
      fc.property(
        anchors,
        fc.constantFrom('month', 'year'),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 40 }),
        (anchor, interval, count, n) => {
          const perInterval = interval === 'year' ? 12 * count : count;
          const { start, end } = periodBounds(
            anchor,
            { interval: interval as PeriodInterval, intervalCount: count },
            n,
          );
          expect(start).toEqual(oracleMonthsLater(anchor, perInterval * (n - 1)));
          expect(end).toEqual(oracleMonthsLater(anchor, perInterval * n));
        },
      ),
    );
  });

  it('never skips or repeats a day: each period starts where the last ended and lasts its interval', () => {
    fc.assert(
      fc.property(
        anchors,
        fc.constantFrom<PeriodInterval>('day', 'week', 'month', 'year'),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 30 }),
        (anchor, interval, count, n) => {
          const terms = { interval, intervalCount: count };
          const current = periodBounds(anchor, terms, n);
          const next = periodBounds(anchor, terms, n + 1);
          expect(next.start).toEqual(current.end);
          const days = (current.end.getTime() - current.start.getTime()) / DAY;
          const bounds: Record<PeriodInterval, [number, number]> = {
            day: [count, count],
            week: [7 * count, 7 * count],
            month: [28 * count - 3, 31 * count + 3],
            year: [365 * count - 1, 366 * count + 1],
          };
          expect(days).toBeGreaterThanOrEqual(bounds[interval][0]);
          expect(days).toBeLessThanOrEqual(bounds[interval][1]);
        },
      ),
    );
  });
});

describe('subscription lifecycle', () => {
  const settle = (from: SubscriptionStatus, ...changes: Parameters<typeof transition>[1][]) =>
    changes.reduce<SubscriptionStatus>((s, c) => transition(s, c)?.status ?? s, from);

  it('walks renewal, dunning and ending as DESIGN.md says, each step with its event', () => {
    expect(transition('trialing', 'charge_succeeded')).toEqual({ status: 'active', event: 'subscription.active' });
    expect(transition('active', 'charge_succeeded')).toEqual({ status: 'active', event: 'subscription.updated' });
    expect(transition('active', 'charge_failed')).toEqual({ status: 'past_due', event: 'subscription.past_due' });
    expect(transition('past_due', 'charge_failed')).toEqual({ status: 'past_due', event: 'subscription.updated' });
    expect(transition('past_due', 'charge_succeeded')).toEqual({ status: 'active', event: 'subscription.active' });
    expect(transition('past_due', 'dunning_exhausted')).toEqual({ status: 'unpaid', event: 'subscription.updated' });
    expect(transition('past_due', 'dunning_exhausted', 'canceled')).toEqual({
      status: 'canceled',
      event: 'subscription.canceled',
    });
    expect(transition('active', 'dunning_exhausted')).toBeNull();
    expect(transition('active', 'period_ended_canceled')).toEqual({
      status: 'canceled',
      event: 'subscription.canceled',
    });
    expect(transition('unpaid', 'revoked')).toEqual({ status: 'canceled', event: 'subscription.revoked' });
    expect(settle('active', 'charge_failed', 'charge_failed', 'dunning_exhausted')).toBe('unpaid');
    // A period ended unpaid with no card: past due once; its renewal checkout paid, active again.
    expect(transition('active', 'payment_due')).toEqual({ status: 'past_due', event: 'subscription.past_due' });
    expect(transition('past_due', 'payment_due')).toBeNull();
    expect(settle('active', 'payment_due', 'dunning_exhausted', 'charge_succeeded')).toBe('active');
  });

  it('a canceled subscription never changes again', () => {
    for (const change of [
      'charge_succeeded',
      'charge_failed',
      'payment_due',
      'dunning_exhausted',
      'period_ended_canceled',
      'revoked',
    ] as const) {
      expect(transition('canceled', change)).toBeNull();
    }
    expect(SUBSCRIPTION_STATUSES).toContain('incomplete');
  });
});

describe('an ended subscription', () => {
  it('is a canceled one, or one being revoked whatever its row still says', () => {
    const ended = SUBSCRIPTION_STATUSES.filter((status) => subscriptionHasEnded(status));
    expect(ended).toEqual(['canceled']);
    expect(SUBSCRIPTION_STATUSES.every((status) => subscriptionHasEnded(status, true))).toBe(true);
  });
});

describe('dunning', () => {
  it('retries 1, 3, 5 and 7 days after the first refusal, then stops', () => {
    const failed = at('2026-03-01T10:00:00Z');
    const days = [1, 3, 5, 7];
    expect([2, 3, 4, 5].map((n) => dunningRetryAt(failed, n, days)?.toISOString())).toEqual([
      '2026-03-02T10:00:00.000Z',
      '2026-03-04T10:00:00.000Z',
      '2026-03-06T10:00:00.000Z',
      '2026-03-08T10:00:00.000Z',
    ]);
    expect(dunningRetryAt(failed, 6, days)).toBeNull();
    expect(dunningRetryAt(failed, 2, [])).toBeNull();
  });

  it('skips retries for a card that is gone, not for one that may recover', () => {
    expect(isHardDecline('expired_card')).toBe(true);
    expect(isHardDecline('fraud_suspected')).toBe(true);
    expect(isHardDecline('insufficient_funds')).toBe(false);
    expect(isHardDecline(null)).toBe(false);
  });

  it('moves to the next try after a soft decline, past the schedule after a hard one', () => {
    const days = [1, 3, 5, 7];
    expect(tryAfterRefusal(1, 'insufficient_funds', days)).toBe(2);
    expect(tryAfterRefusal(4, 'card_declined', days)).toBe(5);
    // Past the schedule: no retry is due any more.
    expect(tryAfterRefusal(1, 'expired_card', days)).toBe(6);
    expect(dunningRetryAt(at('2026-03-01T10:00:00Z'), tryAfterRefusal(2, 'expired_card', days), days)).toBeNull();
  });

  it("keeps a renewal checkout open until the schedule's last day, or a day when it has none", () => {
    const refused = at('2026-03-01T10:00:00Z');
    expect(renewalCheckoutDeadline(refused, [1, 3, 5, 7]).toISOString()).toBe('2026-03-08T10:00:00.000Z');
    expect(renewalCheckoutDeadline(refused, []).toISOString()).toBe('2026-03-02T10:00:00.000Z');
  });

  it("charges at the period's end (spread, but not on a test clock), then on the schedule's days", () => {
    const s = {
      periodEnd: '2026-04-01T10:00:00.000Z',
      firstFailureAt: null,
      tryNumber: 1,
      retryDays: [1, 3],
      renewalDelayMs: 90_000,
      testClock: false,
    };
    expect(nextRenewalChargeAt(s)).toBe(Date.parse('2026-04-01T10:01:30.000Z'));
    expect(nextRenewalChargeAt({ ...s, testClock: true })).toBe(Date.parse('2026-04-01T10:00:00.000Z'));
    const failed = { ...s, firstFailureAt: '2026-04-01T10:01:30.000Z' };
    expect(nextRenewalChargeAt({ ...failed, tryNumber: 2 })).toBe(Date.parse('2026-04-02T10:01:30.000Z'));
    expect(nextRenewalChargeAt({ ...failed, tryNumber: 3 })).toBe(Date.parse('2026-04-04T10:01:30.000Z'));
    expect(nextRenewalChargeAt({ ...failed, tryNumber: 4 })).toBeNull();
  });

  it('keys each try of each period apart, and the same try the same way every time', () => {
    expect(renewalChargeKey('s1', 2, 1)).toBe('subscription:s1:period:2:try:1');
    expect(renewalChargeKey('s1', 2, 1)).toBe(renewalChargeKey('s1', 2, 1));
    expect(
      new Set([renewalChargeKey('s1', 2, 1), renewalChargeKey('s1', 2, 2), renewalChargeKey('s1', 3, 1)]).size,
    ).toBe(3);
  });
});

describe('renewal spread', () => {
  const ids = Array.from(
    { length: 2_000 },
    (_, i) => `0193a6b2-${String(i).padStart(4, '0')}-7000-8000-00000000${i % 10}abc`,
  );

  it('tries each subscription at the period end when there is no spread', () => {
    expect(ids.slice(0, 50).every((id) => renewalDelayMs(id, 0) === 0)).toBe(true);
  });

  it('gives each subscription a fixed offset within the spread, spread evenly over it', () => {
    const spread = 600;
    const delays = ids.map((id) => renewalDelayMs(id, spread));
    expect(delays.every((d) => Number.isInteger(d) && d >= 0 && d < spread * 1000)).toBe(true);
    // The same subscription, the same offset, every time it is asked.
    expect(ids.map((id) => renewalDelayMs(id, spread))).toEqual(delays);
    // Ten equal slices of the spread each hold about a tenth (200 ± 5 standard deviations of 13.4).
    const slices = Array<number>(10).fill(0);
    for (const d of delays) slices[Math.floor(d / (spread * 100))]!++;
    expect(Math.min(...slices)).toBeGreaterThan(133);
    expect(Math.max(...slices)).toBeLessThan(267);
  });

  it('spreads random ids too: none outside the spread', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 1, max: 86_400 }), (id, spread) => {
        const d = renewalDelayMs(id, spread);
        return d >= 0 && d < spread * 1000;
      }),
    );
  });
});

describe('discounts at renewal', () => {
  const anchor = at('2026-01-15T00:00:00Z');
  const tenPercent = {
    type: 'percentage' as const,
    basisPoints: 1_000,
    amount: null,
    currency: null,
    startsAt: null,
    endsAt: null,
    maxRedemptions: null,
    redemptionsCount: 0,
    productIds: [],
  };
  const monthStart = (n: number) => periodBounds(anchor, { interval: 'month', intervalCount: 1 }, n).start;

  it('once: only the first period (which the checkout charged); forever: every period', () => {
    const once = { duration: 'once' as const, durationInMonths: null, rule: tenPercent };
    const forever = { duration: 'forever' as const, durationInMonths: null, rule: tenPercent };
    expect(renewalAmount(9_900, 'brl', once, anchor, monthStart(1))).toBe(8_910);
    expect(renewalAmount(9_900, 'brl', once, anchor, monthStart(2))).toBe(9_900);
    expect([2, 12, 60].map((n) => renewalAmount(9_900, 'brl', forever, anchor, monthStart(n)))).toEqual([
      8_910, 8_910, 8_910,
    ]);
    expect(renewalAmount(9_900, 'brl', null, anchor, monthStart(2))).toBe(9_900);
  });

  it('repeating for 3 months: the first three monthly periods, then the full price', () => {
    const three = { duration: 'repeating' as const, durationInMonths: 3, rule: tenPercent };
    expect([1, 2, 3, 4, 5].map((n) => renewalAmount(9_900, 'brl', three, anchor, monthStart(n)))).toEqual([
      8_910, 8_910, 8_910, 9_900, 9_900,
    ]);
  });

  it('a yearly subscription with a 6-month repeating discount gets it on its first year only', () => {
    const six = { duration: 'repeating' as const, durationInMonths: 6, rule: tenPercent };
    const yearStart = (n: number) => periodBounds(anchor, { interval: 'year', intervalCount: 1 }, n).start;
    expect([1, 2].map((n) => renewalAmount(100_000, 'brl', six, anchor, yearStart(n)))).toEqual([90_000, 100_000]);
  });
});
