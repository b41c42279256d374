import { describe, expect, it } from '@jest/globals';
import { addInterval, isoDate } from '../../domain/periods.ts';

const at = (iso: string) => new Date(iso);

describe('billing periods', () => {
  it('adds days, weeks, months and years in UTC', () => {
    const from = at('2026-03-15T10:30:00.000Z');
    expect(addInterval(from, 'day', 3).toISOString()).toBe('2026-03-18T10:30:00.000Z');
    expect(addInterval(from, 'week', 2).toISOString()).toBe('2026-03-29T10:30:00.000Z');
    expect(addInterval(from, 'month', 1).toISOString()).toBe('2026-04-15T10:30:00.000Z');
    expect(addInterval(from, 'month', 12).toISOString()).toBe('2027-03-15T10:30:00.000Z');
    expect(addInterval(from, 'year', 1).toISOString()).toBe('2027-03-15T10:30:00.000Z');
  });

  it('clamps a month-end start to the end of shorter months', () => {
    expect(addInterval(at('2026-01-31T12:00:00.000Z'), 'month', 1).toISOString()).toBe('2026-02-28T12:00:00.000Z');
    expect(addInterval(at('2028-01-31T12:00:00.000Z'), 'month', 1).toISOString()).toBe('2028-02-29T12:00:00.000Z');
    expect(addInterval(at('2026-03-31T00:00:00.000Z'), 'month', 1).toISOString()).toBe('2026-04-30T00:00:00.000Z');
    expect(addInterval(at('2026-08-31T00:00:00.000Z'), 'month', 6).toISOString()).toBe('2027-02-28T00:00:00.000Z');
    expect(addInterval(at('2028-02-29T00:00:00.000Z'), 'year', 1).toISOString()).toBe('2029-02-28T00:00:00.000Z');
  });

  it('does not change the instant it starts from', () => {
    const from = at('2026-01-01T00:00:00.000Z');
    addInterval(from, 'month', 1);
    expect(from.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('writes gateway dates as YYYY-MM-DD in UTC', () => {
    expect(isoDate(at('2026-12-31T23:59:59.999Z'))).toBe('2026-12-31');
  });
});
