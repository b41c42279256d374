import { describe, expect, it } from '@jest/globals';
import {
  addDays,
  brazilHolidays,
  daysBetween,
  easterSunday,
  isBusinessDay,
  nextBusinessDay,
  onOrAfterBusinessDay,
  onOrBeforeBusinessDay,
} from '../../domain/business-days.ts';

/**
 * The oracle: Brazil's national and bank holidays written out by hand, the Easter-dependent ones
 * counted from Easter Sunday on a calendar (2025-04-20, 2026-04-05, 2027-03-28): Carnival Monday
 * and Tuesday 48 and 47 days before, Good Friday 2 before, Corpus Christi 60 after.
 */
const HOLIDAYS: Record<number, string[]> = {
  2025: [
    '2025-01-01', // Confraternização Universal (Wednesday)
    '2025-03-03', // Carnaval, Monday
    '2025-03-04', // Carnaval, Tuesday
    '2025-04-18', // Sexta-feira Santa
    '2025-04-21', // Tiradentes (Monday)
    '2025-05-01', // Dia do Trabalho
    '2025-06-19', // Corpus Christi
    '2025-09-07', // Independência (Sunday)
    '2025-10-12', // Nossa Senhora Aparecida (Sunday)
    '2025-11-02', // Finados (Sunday)
    '2025-11-15', // Proclamação da República (Saturday)
    '2025-11-20', // Consciência Negra
    '2025-12-25', // Natal
  ],
  2026: [
    '2026-01-01',
    '2026-02-16', // Carnaval, Monday
    '2026-02-17', // Carnaval, Tuesday
    '2026-04-03', // Sexta-feira Santa
    '2026-04-21',
    '2026-05-01',
    '2026-06-04', // Corpus Christi
    '2026-09-07',
    '2026-10-12',
    '2026-11-02',
    '2026-11-15',
    '2026-11-20',
    '2026-12-25',
  ],
  2027: [
    '2027-01-01',
    '2027-02-08', // Carnaval, Monday
    '2027-02-09', // Carnaval, Tuesday
    '2027-03-26', // Sexta-feira Santa
    '2027-04-21',
    '2027-05-01',
    '2027-05-27', // Corpus Christi
    '2027-09-07',
    '2027-10-12',
    '2027-11-02',
    '2027-11-15',
    '2027-11-20',
    '2027-12-25',
  ],
};
const ALL_HOLIDAYS = new Set(Object.values(HOLIDAYS).flat());

/** Every day of 2025–2027, each with the weekday a calendar shows (2025-01-01 was a Wednesday). */
const DAYS = Array.from({ length: 365 * 3 }, (_, i) => ({ date: addDays('2025-01-01', i), weekday: (3 + i) % 7 }));
const oracleBusinessDay = (date: string) => {
  const day = DAYS.find((d) => d.date === date);
  if (!day) throw new Error(`${date} is outside the oracle's years`);
  return day.weekday !== 0 && day.weekday !== 6 && !ALL_HOLIDAYS.has(date);
};

describe('brazilHolidays', () => {
  it.each([2025, 2026, 2027])('%i: the national and bank holidays, nothing else', (year) => {
    expect([...brazilHolidays(year)].sort()).toEqual(HOLIDAYS[year]);
  });

  it('Consciência Negra is a national holiday from 2024 on (Lei 14.759/2023), not before', () => {
    expect(brazilHolidays(2023).has('2023-11-20')).toBe(false);
    expect(brazilHolidays(2024).has('2024-11-20')).toBe(true);
  });
});

describe('easterSunday', () => {
  it.each([
    [1943, '1943-04-25'], // the latest possible
    [1961, '1961-04-02'],
    [2000, '2000-04-23'],
    [2008, '2008-03-23'],
    [2011, '2011-04-24'],
    [2019, '2019-04-21'],
    [2024, '2024-03-31'],
    [2025, '2025-04-20'],
    [2026, '2026-04-05'],
    [2027, '2027-03-28'],
    [2038, '2038-04-25'],
    [2285, '2285-03-22'], // the earliest possible
  ])('%i: %s', (year, easter) => {
    expect(easterSunday(year)).toBe(easter);
  });
});

describe('isBusinessDay', () => {
  it('agrees with the hand-written calendar on every day of 2025, 2026 and 2027', () => {
    const disagreements = DAYS.filter(({ date }) => isBusinessDay(date) !== oracleBusinessDay(date)).map((d) => d.date);
    expect(disagreements).toEqual([]);
    // 261 weekdays a year, less the holidays that fall on one: 9 in 2025, 12 in 2026, 10 in 2027.
    expect(DAYS.filter(({ date }) => isBusinessDay(date)).length).toBe(252 + 249 + 251);
  });

  it.each([
    ['2026-02-16', false], // Carnival Monday
    ['2026-02-18', true], // Ash Wednesday: the banks open (at noon) and settle
    ['2026-12-24', true],
    ['2026-12-31', true],
    ['2026-11-20', false], // a Friday
    ['2026-11-21', false], // a Saturday
  ])('%s: %p', (date, business) => {
    expect(isBusinessDay(date)).toBe(business);
  });
});

describe('moving to a business day', () => {
  it.each([
    ['2026-02-16', '2026-02-18'], // Carnival Monday → Ash Wednesday
    ['2026-02-14', '2026-02-18'], // the Saturday before Carnival
    ['2026-04-03', '2026-04-06'], // Good Friday → Monday
    ['2025-12-25', '2025-12-26'],
    ['2027-01-01', '2027-01-04'], // a Friday → Monday
    ['2025-04-18', '2025-04-22'], // Good Friday, the weekend, Tiradentes on Monday → Tuesday
    ['2026-03-02', '2026-03-02'], // already one
  ])('onOrAfterBusinessDay(%s) is %s', (date, business) => {
    expect(onOrAfterBusinessDay(date)).toBe(business);
  });

  it.each([
    ['2026-02-13', '2026-02-18'], // Friday before Carnival → Ash Wednesday
    ['2025-04-17', '2025-04-22'],
    ['2026-06-03', '2026-06-05'], // over Corpus Christi
    ['2027-12-31', '2028-01-03'],
  ])('nextBusinessDay(%s) is %s', (date, business) => {
    expect(nextBusinessDay(date)).toBe(business);
  });

  it.each([
    ['2026-02-17', '2026-02-13'],
    ['2025-04-21', '2025-04-17'],
    ['2026-06-04', '2026-06-03'],
  ])('onOrBeforeBusinessDay(%s) is %s', (date, business) => {
    expect(onOrBeforeBusinessDay(date)).toBe(business);
  });

  it('on every day of 2025–2027, each lands on the nearest business day the calendar shows', () => {
    const within = DAYS.slice(10, -10);
    for (const { date } of within) {
      const after = DAYS.findIndex((d) => d.date >= date && oracleBusinessDay(d.date));
      const before = DAYS.findLastIndex((d) => d.date <= date && oracleBusinessDay(d.date));
      const strictlyAfter = DAYS.findIndex((d) => d.date > date && oracleBusinessDay(d.date));
      expect([onOrAfterBusinessDay(date), onOrBeforeBusinessDay(date), nextBusinessDay(date)]).toEqual([
        DAYS[after]?.date,
        DAYS[before]?.date,
        DAYS[strictlyAfter]?.date,
      ]);
    }
  });
});

describe('calendar arithmetic', () => {
  it('adds and counts days across months, leap days and years', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2027-02-28', 1)).toBe('2027-03-01');
    expect(addDays('2026-01-05', -10)).toBe('2025-12-26');
    expect(daysBetween('2026-02-16', '2026-02-18')).toBe(2);
    expect(daysBetween('2026-12-31', '2026-01-01')).toBe(-364);
  });
});
