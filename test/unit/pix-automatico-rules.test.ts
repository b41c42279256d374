import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isBusinessDay } from '../../domain/business-days.ts';
import type { PeriodInterval } from '../../domain/periods.ts';
import {
  chargeSendDate,
  cycleDueDate,
  isAllowedRetryDate,
  laterChargeStatus,
  laterMandateStatus,
  mandateAllows,
  periodicityOf,
  retryDates,
  settlementDateOf,
  type MandateChargeStatus,
  type MandatePeriodicity,
  type MandateStatus,
} from '../../domain/pix-automatico.ts';

// ── The test's own calendar arithmetic (not the module's) ───────────────────────────────────────

const DAY_MS = 86_400_000;
const utc = (date: string) => Date.parse(`${date}T00:00:00Z`);
const plusDays = (date: string, days: number) => new Date(utc(date) + days * DAY_MS).toISOString().slice(0, 10);
const daysFrom = (from: string, to: string) => (utc(to) - utc(from)) / DAY_MS;
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysInMonth = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!);
const pad = (n: number) => String(n).padStart(2, '0');

const MONTHS_OF: Record<Exclude<MandatePeriodicity, 'weekly'>, number> = {
  monthly: 1,
  quarterly: 3,
  semiannual: 6,
  yearly: 12,
};

/** The due date of a cycle, counted by hand: the start's day in the target month, or its last day. */
function expectedDueDate(start: string, periodicity: MandatePeriodicity, cycle: number): string {
  if (periodicity === 'weekly') return plusDays(start, 7 * (cycle - 1));
  const [year, month, day] = start.split('-').map(Number) as [number, number, number];
  const months = month - 1 + MONTHS_OF[periodicity] * (cycle - 1);
  const targetYear = year + Math.floor(months / 12);
  const targetMonth = (months % 12) + 1;
  return `${targetYear}-${pad(targetMonth)}-${pad(Math.min(day, daysInMonth(targetYear, targetMonth)))}`;
}

const days = (from: string, to: string) =>
  fc.integer({ min: 0, max: daysFrom(from, to) }).map((offset) => plusDays(from, offset));
const startDates = days('2025-01-01', '2035-12-31');
const periodicities = fc.constantFrom<MandatePeriodicity>('weekly', 'monthly', 'quarterly', 'semiannual', 'yearly');
const cycles = fc.integer({ min: 1, max: 60 });

// ── Due dates ─────────────────────────────────────────────────────────────────────────────────────

describe('cycleDueDate', () => {
  it("keeps the start's day (the month's last when it has fewer) and only moves forward", () => {
    fc.assert(
      fc.property(startDates, periodicities, cycles, (start, periodicity, cycle) => {
        const due = cycleDueDate(start, periodicity, cycle);
        expect(due).toBe(expectedDueDate(start, periodicity, cycle));
        expect(cycleDueDate(start, periodicity, cycle + 1) > due).toBe(true);
      }),
    );
  });

  it('cycle 1 is the start date', () => {
    fc.assert(fc.property(startDates, periodicities, (start, p) => expect(cycleDueDate(start, p, 1)).toBe(start)));
  });

  it.each<[string, MandatePeriodicity, number, string]>([
    ['2026-01-31', 'monthly', 2, '2026-02-28'],
    ['2026-01-31', 'monthly', 3, '2026-03-31'], // back to the 31st: counted from the start, not the last cycle
    ['2028-01-31', 'monthly', 2, '2028-02-29'],
    ['2025-11-30', 'quarterly', 2, '2026-02-28'],
    ['2025-08-31', 'semiannual', 2, '2026-02-28'],
    ['2028-02-29', 'yearly', 2, '2029-02-28'],
    ['2028-02-29', 'yearly', 5, '2032-02-29'],
    ['2026-12-28', 'weekly', 2, '2027-01-04'],
  ])('%s, %s, cycle %i: %s', (start, periodicity, cycle, due) => {
    expect(cycleDueDate(start, periodicity, cycle)).toBe(due);
  });

  it('a monthly cycle due on Carnival Monday 2026 settles on Ash Wednesday', () => {
    expect(cycleDueDate('2026-01-16', 'monthly', 2)).toBe('2026-02-16');
    expect(settlementDateOf('2026-02-16')).toBe('2026-02-18');
  });
});

// ── The window a charge is sent in ────────────────────────────────────────────────────────────────

describe('chargeSendDate', () => {
  it('is null or a day from ten to two days before the due date, never before today', () => {
    fc.assert(
      fc.property(startDates, fc.integer({ min: -40, max: 10 }), (due, offset) => {
        const today = plusDays(due, offset);
        const day = chargeSendDate(due, today);
        if (day === null) return;
        expect(daysFrom(day, due)).toBeGreaterThanOrEqual(2);
        expect(daysFrom(day, due)).toBeLessThanOrEqual(10);
        expect(day >= today).toBe(true);
      }),
    );
  });

  it('four days before while that is to come; today while the window is open; null after it closed', () => {
    fc.assert(
      fc.property(startDates, fc.integer({ min: -40, max: 10 }), (due, offset) => {
        const today = plusDays(due, offset);
        const expected = offset <= -4 ? plusDays(due, -4) : offset <= -2 ? today : null;
        expect(chargeSendDate(due, today)).toBe(expected);
      }),
    );
  });

  it.each([
    ['2026-03-01', '2026-03-16'],
    ['2026-03-16', '2026-03-16'],
    ['2026-03-17', '2026-03-17'],
    ['2026-03-18', '2026-03-18'],
    ['2026-03-19', null],
    ['2026-03-20', null],
  ])('due 2026-03-20, today %s: %s', (today, day) => {
    expect(chargeSendDate('2026-03-20', today)).toBe(day);
  });
});

// ── Retries ───────────────────────────────────────────────────────────────────────────────────────

const policies = fc.constantFrom('none', 'three_in_seven_days' as const);
/** A cycle's due date and the next one's (null when it is the mandate's last cycle). */
const cycleDates = fc
  .tuple(startDates, periodicities, fc.integer({ min: 1, max: 24 }), fc.boolean())
  .map(([start, periodicity, cycle, last]) => ({
    periodicity,
    due: cycleDueDate(start, periodicity, cycle),
    nextDue: last ? null : cycleDueDate(start, periodicity, cycle + 1),
  }));

describe('retryDates', () => {
  it('at most three distinct business days, ascending, within seven days after the settlement date, before the next cycle settles', () => {
    fc.assert(
      fc.property(cycleDates, ({ due, nextDue, periodicity }) => {
        const dates = retryDates(due, nextDue, 'three_in_seven_days');
        const settles = settlementDateOf(due);
        expect(dates.length).toBeLessThanOrEqual(3);
        if (periodicity !== 'weekly') expect(dates.length).toBeGreaterThanOrEqual(1);
        expect([...new Set(dates)].sort()).toEqual(dates);
        for (const date of dates) {
          expect(isBusinessDay(date)).toBe(true);
          expect(daysFrom(settles, date)).toBeGreaterThanOrEqual(1);
          expect(daysFrom(settles, date)).toBeLessThanOrEqual(7);
          if (nextDue !== null) expect(date < settlementDateOf(nextDue)).toBe(true);
        }
      }),
    );
  });

  it('none when the mandate allows none', () => {
    fc.assert(fc.property(cycleDates, ({ due, nextDue }) => expect(retryDates(due, nextDue, 'none')).toEqual([])));
  });

  it('every date it gives is one the gateway accepts', () => {
    fc.assert(
      fc.property(cycleDates, ({ due, nextDue }) => {
        for (const date of retryDates(due, nextDue, 'three_in_seven_days')) {
          expect(isAllowedRetryDate(due, date, 'three_in_seven_days')).toBe(true);
        }
      }),
    );
  });

  it.each<[string, string | null, string[]]>([
    ['2026-03-02', '2026-04-02', ['2026-03-03', '2026-03-05', '2026-03-09']], // a Monday: Tue, Thu, next Mon
    ['2026-03-02', '2026-03-09', ['2026-03-03', '2026-03-05']], // weekly: the next cycle settles on the 9th
    ['2026-02-13', '2026-03-13', ['2026-02-18', '2026-02-20']], // the Friday before Carnival: Wed, Fri
    ['2026-02-16', null, ['2026-02-19', '2026-02-23', '2026-02-25']], // due on Carnival Monday, settles Wed
    ['2026-04-02', '2026-05-02', ['2026-04-06', '2026-04-09']], // Thursday before Good Friday
  ])('due %s, next due %s: %j', (due, nextDue, dates) => {
    expect(retryDates(due, nextDue, 'three_in_seven_days')).toEqual(dates);
  });
});

describe('isAllowedRetryDate', () => {
  it('a business day one to seven days after the settlement date, under a policy that allows retries', () => {
    fc.assert(
      fc.property(startDates, fc.integer({ min: -5, max: 12 }), policies, (due, offset, policy) => {
        const settles = settlementDateOf(due);
        const date = plusDays(settles, offset);
        const expected = policy !== 'none' && isBusinessDay(date) && offset >= 1 && offset <= 7;
        expect(isAllowedRetryDate(due, date, policy)).toBe(expected);
      }),
    );
  });

  it.each([
    ['2026-02-16', '2026-02-18', false], // the settlement date itself
    ['2026-02-16', '2026-02-19', true],
    ['2026-02-16', '2026-02-25', true], // seven days after Ash Wednesday
    ['2026-02-16', '2026-02-26', false],
    ['2026-02-16', '2026-02-21', false], // a Saturday
  ])('due %s, retry on %s: %p', (due, date, allowed) => {
    expect(isAllowedRetryDate(due, date, 'three_in_seven_days')).toBe(allowed);
  });
});

// ── States that only move forward ─────────────────────────────────────────────────────────────────

/** The paths a mandate's notices really take (one final state at most), each notice maybe delivered twice. */
const MANDATE_PATHS: MandateStatus[][] = [
  ['created'],
  ['created', 'approved'],
  ['created', 'rejected'],
  ['created', 'expired'],
  ['created', 'cancelled'],
  ['created', 'approved', 'cancelled'],
  ['created', 'approved', 'expired'],
];
const CHARGE_PATHS: MandateChargeStatus[][] = [
  ['created'],
  ['created', 'active'],
  ['created', 'rejected'],
  ['created', 'cancelled'],
  ['created', 'active', 'completed'],
  ['created', 'active', 'expired'],
  ['created', 'active', 'rejected'],
  ['created', 'active', 'cancelled'],
];

/** A true sequence of notices (with repeats), and the same notices in any order. */
const notices = <S extends string>(paths: S[][]) =>
  fc
    .constantFrom(...paths)
    .chain((path) =>
      fc
        .array(fc.integer({ min: 1, max: 3 }), { minLength: path.length, maxLength: path.length })
        .map((repeats) => path.flatMap((status, i) => Array<S>(repeats[i]!).fill(status))),
    )
    .chain((sequence) =>
      fc.shuffledSubarray(sequence, { minLength: sequence.length }).map((shuffled) => ({ sequence, shuffled })),
    );

function fold<S extends string>(later: (current: S, incoming: S) => S, statuses: S[]): S[] {
  const seen: S[] = [];
  let current = 'created' as S;
  for (const status of statuses) seen.push((current = later(current, status)));
  return seen;
}

describe.each([
  ['laterMandateStatus', laterMandateStatus, MANDATE_PATHS] as const,
  ['laterChargeStatus', laterChargeStatus, CHARGE_PATHS] as const,
])('%s', (_, later, paths) => {
  const laterOf = later as (current: string, incoming: string) => string;

  it('folded over the notices in any order, ends where the true order ends', () => {
    fc.assert(
      fc.property(notices<string>(paths), ({ sequence, shuffled }) => {
        expect(fold(laterOf, shuffled).at(-1)).toBe(sequence.at(-1));
        expect(fold(laterOf, sequence).at(-1)).toBe(sequence.at(-1));
      }),
    );
  });

  it('never goes back to created once past it', () => {
    fc.assert(
      fc.property(notices<string>(paths), ({ shuffled }) => {
        const seen = fold(laterOf, shuffled);
        const past = seen.findIndex((status) => status !== 'created');
        if (past >= 0) expect(seen.slice(past)).not.toContain('created');
      }),
    );
  });
});

it('a final state stays final: a late approval does not reopen a cancelled mandate, nor a late activation a paid charge', () => {
  expect(laterMandateStatus('cancelled', 'approved')).toBe('cancelled');
  expect(laterMandateStatus('rejected', 'created')).toBe('rejected');
  expect(laterMandateStatus('approved', 'created')).toBe('approved');
  expect(laterChargeStatus('completed', 'active')).toBe('completed');
  expect(laterChargeStatus('cancelled', 'created')).toBe('cancelled');
  // Nor does another final state replace the first: a paid charge is never turned into an expired one.
  expect(laterChargeStatus('completed', 'expired')).toBe('completed');
  expect(laterMandateStatus('rejected', 'cancelled')).toBe('rejected');
});

// ── Amounts ───────────────────────────────────────────────────────────────────────────────────────

describe('mandateAllows', () => {
  const amount = fc.integer({ min: 0, max: 10_000_000 });

  it('a fixed mandate takes its amount and nothing else, whatever the payer set', () => {
    fc.assert(
      fc.property(amount, amount, fc.option(amount), (fixed, charged, payerMaximum) => {
        const mandate = { fixedAmount: fixed, minimumAmount: null, payerMaximum };
        expect(mandateAllows(mandate, charged)).toBe(charged === fixed);
        expect(mandateAllows(mandate, fixed)).toBe(true);
      }),
    );
  });

  it("a variable mandate takes from the receiver's floor up to the payer's maximum, each when set", () => {
    fc.assert(
      fc.property(fc.option(amount), fc.option(amount), amount, (minimumAmount, payerMaximum, charged) => {
        const aboveFloor = minimumAmount === null || charged >= minimumAmount;
        const belowMaximum = payerMaximum === null || charged <= payerMaximum;
        expect(mandateAllows({ fixedAmount: null, minimumAmount, payerMaximum }, charged)).toBe(
          aboveFloor && belowMaximum,
        );
      }),
    );
  });

  it.each([
    [{ fixedAmount: 3500, minimumAmount: null, payerMaximum: null }, 3500, true],
    [{ fixedAmount: 3500, minimumAmount: null, payerMaximum: null }, 3499, false],
    [{ fixedAmount: 3500, minimumAmount: null, payerMaximum: null }, 3501, false],
    [{ fixedAmount: null, minimumAmount: 500, payerMaximum: 2000 }, 499, false],
    [{ fixedAmount: null, minimumAmount: 500, payerMaximum: 2000 }, 500, true],
    [{ fixedAmount: null, minimumAmount: 500, payerMaximum: 2000 }, 2000, true],
    [{ fixedAmount: null, minimumAmount: 500, payerMaximum: 2000 }, 2001, false],
    [{ fixedAmount: null, minimumAmount: null, payerMaximum: null }, 99_999_999, true],
    [{ fixedAmount: null, minimumAmount: 5000, payerMaximum: 4000 }, 4500, false], // lowered below the charge
  ])('%j takes %i: %p', (mandate, charged, allowed) => {
    expect(mandateAllows(mandate, charged)).toBe(allowed);
  });
});

// ── Which prices ──────────────────────────────────────────────────────────────────────────────────

describe('periodicityOf', () => {
  const BILLABLE: Record<string, MandatePeriodicity> = {
    'week×1': 'weekly',
    'month×1': 'monthly',
    'month×3': 'quarterly',
    'month×6': 'semiannual',
    'year×1': 'yearly',
    // Twelve months are a year: the subscription's periods fall on the same days (domain/periods.ts).
    'month×12': 'yearly',
  };
  const pairs = (['day', 'week', 'month', 'year'] as PeriodInterval[]).flatMap((interval) =>
    Array.from({ length: 12 }, (_, i) => [interval, i + 1] as const),
  );

  it.each(pairs)('%s × %i', (interval, count) => {
    expect(periodicityOf(interval, count)).toBe(BILLABLE[`${interval}×${count}`] ?? null);
  });
});
