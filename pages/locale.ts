import { formatAmount } from '../domain/money.ts';

/** The pages speak Brazilian Portuguese unless the browser prefers English. */
export type Locale = 'pt-BR' | 'en';

/** The first language of Accept-Language that we speak; Portuguese when none is English. */
export function pickLocale(acceptLanguage: string | undefined): Locale {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)/.exec(p)?.[1]).find(Boolean);
      return { tag, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((l) => l.tag && l.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag === 'pt' || tag.startsWith('pt-')) return 'pt-BR';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'pt-BR';
}

export const money = (locale: Locale, cents: number, currency = 'brl') => formatAmount(cents, currency, locale);

/** A calendar date as the reader writes it (25/11/2026 or 11/25/2026), in Brazil's time. */
export function calendarDate(locale: Locale, at: Date | string): string {
  const date = typeof at === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(at) ? new Date(`${at}T12:00:00Z`) : new Date(at);
  return new Intl.DateTimeFormat(locale, { timeZone: 'America/Sao_Paulo' }).format(date);
}
