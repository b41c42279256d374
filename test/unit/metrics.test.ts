import { describe, expect, it } from '@jest/globals';
import {
  knownTimeZone,
  periodCount,
  rangeRefusal,
  roundedQuotient,
  shareOf,
  totalsOf,
  type PeriodSums,
} from '../../domain/metrics.ts';

describe('metrics periods', () => {
  it('counts calendar days, ISO weeks, months and years, the first and last partial', () => {
    expect(periodCount('2025-03-01', '2025-03-01', 'day')).toBe(1);
    expect(periodCount('2024-01-01', '2024-12-31', 'day')).toBe(366);
    // Wednesday 26 Feb to Wednesday 12 Mar 2025: weeks of 24 Feb, 3 Mar and 10 Mar.
    expect(periodCount('2025-02-26', '2025-03-12', 'week')).toBe(3);
    // Sunday to the next day, a Monday: two weeks; Monday to Sunday: one.
    expect(periodCount('2025-03-02', '2025-03-03', 'week')).toBe(2);
    expect(periodCount('2025-03-03', '2025-03-09', 'week')).toBe(1);
    // 1 January 1970 was a Thursday: its week began on Monday 29 December 1969.
    expect(periodCount('1970-01-01', '1970-01-04', 'week')).toBe(1);
    expect(periodCount('1970-01-04', '1970-01-05', 'week')).toBe(2);
    expect(periodCount('2025-01-31', '2025-03-01', 'month')).toBe(3);
    expect(periodCount('2024-12-31', '2025-01-01', 'year')).toBe(2);
  });

  it('refuses a range that ends before it starts, starts before 1970 or makes more than 366 periods', () => {
    expect(rangeRefusal('2025-03-02', '2025-03-01', 'day')?.code).toBe('invalid_date_range');
    expect(rangeRefusal('1969-12-31', '2025-03-01', 'year')?.code).toBe('invalid_date_range');
    expect(rangeRefusal('2024-01-01', '2024-12-31', 'day')).toBeNull();
    expect(rangeRefusal('2024-01-01', '2025-01-01', 'day')).toMatchObject({
      code: 'too_many_periods',
      detail: expect.stringContaining('367 periods'),
    });
    expect(rangeRefusal('1970-01-01', '2335-12-31', 'year')).toBeNull();
    expect(rangeRefusal('1970-01-01', '2336-01-01', 'year')?.code).toBe('too_many_periods');
  });
});

describe('time zones', () => {
  it('takes IANA names, in their proper case', () => {
    expect(knownTimeZone('America/Sao_Paulo')).toBe('America/Sao_Paulo');
    expect(knownTimeZone('america/sao_paulo')).toBe('America/Sao_Paulo');
    expect(knownTimeZone('UTC')).toBe('UTC');
    expect(knownTimeZone('Etc/GMT+3')).toBe('Etc/GMT+3');
  });

  it('refuses unknown names and bare offsets', () => {
    for (const name of ['Mars/Olympus_Mons', '-03:00', '+0300', 'America/Sao Paulo', '', 'America//Sao_Paulo'])
      expect(knownTimeZone(name)).toBeNull();
  });
});

describe('averages and rates', () => {
  it('rounds a quotient half up, exactly', () => {
    expect(roundedQuotient(14_999, 2)).toBe(7500);
    expect(roundedQuotient(14_997, 2)).toBe(7499);
    expect(roundedQuotient(25_323, 5)).toBe(5065);
    expect(roundedQuotient(10, 3)).toBe(3);
    expect(roundedQuotient(-5, 2)).toBe(-3);
    expect(roundedQuotient(9_007_199_254_740_991, 2)).toBe(4_503_599_627_370_496);
    expect(roundedQuotient(1, 0)).toBeNull();
  });

  it('gives a share with four decimal places', () => {
    expect(shareOf(1, 3)).toBe(0.3333);
    expect(shareOf(2, 3)).toBe(0.6667);
    expect(shareOf(1, 20_000)).toBe(0.0001); // 0.00005 rounds up
    expect(shareOf(0, 4)).toBe(0);
    expect(shareOf(0, 0)).toBeNull();
  });
});

describe('totals', () => {
  const period = (p: Partial<PeriodSums>): PeriodSums => ({
    revenue: 0,
    refunds: 0,
    sales_count: 0,
    refunded_sales_count: 0,
    chargebacks: 0,
    disputed_sales_count: 0,
    new_subscriptions: 0,
    churned_subscriptions: 0,
    active_subscriptions: 0,
    mrr: 0,
    checkouts: 0,
    succeeded_checkouts: 0,
    ...p,
  });

  it('adds flows, takes stocks at the end, and averages the sums (not the periods)', () => {
    const totals = totalsOf([
      period({ revenue: 100, sales_count: 1, active_subscriptions: 5, mrr: 500, checkouts: 1, succeeded_checkouts: 1 }),
      period({ revenue: 301, refunds: 1, sales_count: 3, active_subscriptions: 4, mrr: 450, checkouts: 3 }),
      period({ chargebacks: 50, disputed_sales_count: 1, active_subscriptions: 4, mrr: 450 }),
    ]);
    expect(totals).toEqual({
      ...period({ revenue: 401, refunds: 1, sales_count: 4, active_subscriptions: 4, mrr: 450 }),
      ...{ checkouts: 4, succeeded_checkouts: 1, chargebacks: 50, disputed_sales_count: 1 },
      // What the sales kept: refunds and lost disputes taken off.
      net_revenue: 350,
      average_order_value: 100, // 401 / 4 = 100.25; the periods' averages would give (100 + 100) / 2
      checkout_conversion: 0.25,
    });
  });
});
