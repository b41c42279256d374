/** Which days an on-demand reconciliation takes (decision 0076): a UTC day, today at the latest. */

export interface DayRefusal {
  code: 'day_in_future';
  message: string;
  detail: string;
}

/** Today's UTC day as YYYY-MM-DD. */
export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/** The UTC day before `now`: what the daily Schedule reconciles, and the dashboard's default. */
export const utcYesterday = (now: Date) => utcDay(new Date(now.getTime() - 86_400_000));

/**
 * A day whose books are not yet written is refused; today is taken (its report covers what has moved
 * so far). `day` is a valid YYYY-MM-DD: the request's schema has checked it.
 */
export function reconciliationDayRefusal(day: string, now: Date): DayRefusal | null {
  const today = utcDay(now);
  if (day <= today) return null;
  return {
    code: 'day_in_future',
    message: 'The day has not come yet',
    detail: `day must be a UTC day no later than today (${today}); got ${day}`,
  };
}
