export type PeriodInterval = 'day' | 'week' | 'month' | 'year';

/**
 * The end of `count` billing intervals from `from`, in UTC (time is an argument: no clock here).
 * Months and years keep the day of the month, clamped to the month's last day: a period that starts
 * on 31 January ends on 28 (or 29) February, never in March.
 */
export function addInterval(from: Date, interval: PeriodInterval, count: number): Date {
  const d = new Date(from);
  if (interval === 'day') d.setUTCDate(d.getUTCDate() + count);
  else if (interval === 'week') d.setUTCDate(d.getUTCDate() + 7 * count);
  else return addMonths(d, interval === 'month' ? count : 12 * count);
  return d;
}

function addMonths(from: Date, months: number): Date {
  const d = new Date(from);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d;
}

/** YYYY-MM-DD of an instant, in UTC (gateway dates). */
export const isoDate = (d: Date) => d.toISOString().slice(0, 10);
