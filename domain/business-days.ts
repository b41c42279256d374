/**
 * Brazil's banking calendar: a business day is a weekday that is not a national holiday. Pix itself
 * runs every day, but a Pix Automático charge settles on a business day (its due date moves to the next
 * one, the BCB's `ajusteDiaUtil`), and its retries are counted in business days. Dates are YYYY-MM-DD
 * strings in the calendar of Brasília; no clock here.
 *
 * National holidays (Lei 662/1949, 6.802/1980, 14.759/2023) and the bank holidays every Brazilian bank
 * keeps (Carnival Monday and Tuesday, Good Friday, Corpus Christi), the movable ones from Easter. Local
 * holidays of the payer's city are the payer's bank's to apply; the engine does not know the city.
 */

const FIXED_HOLIDAYS: readonly (readonly [month: number, day: number, since?: number])[] = [
  [1, 1], // Confraternização Universal
  [4, 21], // Tiradentes
  [5, 1], // Dia do Trabalho
  [9, 7], // Independência
  [10, 12], // Nossa Senhora Aparecida
  [11, 2], // Finados
  [11, 15], // Proclamação da República
  [11, 20, 2024], // Dia Nacional de Zumbi e da Consciência Negra (Lei 14.759/2023)
  [12, 25], // Natal
];

/** Days after Easter Sunday: Carnival Monday and Tuesday, Good Friday, Corpus Christi. */
const EASTER_OFFSETS = [-48, -47, -2, 60] as const;

const DAY_MS = 86_400_000;

const toDate = (date: string) => new Date(`${date}T00:00:00Z`);
const toIso = (d: Date) => d.toISOString().slice(0, 10);

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm, Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const holidayCache = new Map<number, ReadonlySet<string>>();

/** Every national and bank holiday of a year, YYYY-MM-DD. */
export function brazilHolidays(year: number): ReadonlySet<string> {
  const cached = holidayCache.get(year);
  if (cached) return cached;
  const days = new Set<string>();
  for (const [month, day, since] of FIXED_HOLIDAYS) {
    if (since === undefined || year >= since) {
      days.add(`${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`);
    }
  }
  const easter = toDate(easterSunday(year)).getTime();
  for (const offset of EASTER_OFFSETS) days.add(toIso(new Date(easter + offset * DAY_MS)));
  holidayCache.set(year, days);
  return days;
}

export function isBusinessDay(date: string): boolean {
  const d = toDate(date);
  const weekday = d.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !brazilHolidays(d.getUTCFullYear()).has(date);
}

/** `days` calendar days after `date` (negative: before). */
export function addDays(date: string, days: number): string {
  return toIso(new Date(toDate(date).getTime() + days * DAY_MS));
}

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((toDate(to).getTime() - toDate(from).getTime()) / DAY_MS);
}

/** The date itself when it is a business day, else the next one (the BCB's ajusteDiaUtil). */
export function onOrAfterBusinessDay(date: string): string {
  let d = date;
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
}

/** The date itself when it is a business day, else the one before. */
export function onOrBeforeBusinessDay(date: string): string {
  let d = date;
  while (!isBusinessDay(d)) d = addDays(d, -1);
  return d;
}

/** The first business day strictly after `date`. */
export function nextBusinessDay(date: string): string {
  return onOrAfterBusinessDay(addDays(date, 1));
}
