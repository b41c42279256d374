export type PeriodInterval = 'day' | 'week' | 'month' | 'year';

/** The end of `count` billing intervals from `from`, in UTC (time is an argument: no clock here). */
export function addInterval(from: Date, interval: PeriodInterval, count: number): Date {
  const d = new Date(from);
  if (interval === 'day') d.setUTCDate(d.getUTCDate() + count);
  else if (interval === 'week') d.setUTCDate(d.getUTCDate() + 7 * count);
  else if (interval === 'month') d.setUTCMonth(d.getUTCMonth() + count);
  else d.setUTCFullYear(d.getUTCFullYear() + count);
  return d;
}

/** YYYY-MM-DD of an instant, in UTC (gateway dates). */
export const isoDate = (d: Date) => d.toISOString().slice(0, 10);
