import { z } from 'zod';
import type { RequestBody } from '../api-client.ts';
import type { Locale } from '../../locale.ts';
import type { Notice } from '../layout.ts';
import { catalogMessages } from '../messages-catalog.ts';
import { centsOf, formList } from './forms.ts';

/**
 * The catalog's forms (products, prices, discounts) turned into the API's bodies. Only what a form
 * needs to say in the API's terms is done here (reais to cents, a percentage to basis points, a day
 * to a moment); every rule about the values is the API's, and its refusal is what the page shows.
 */

/** A field the page could not put in the API's terms: its name and what to type instead. */
export interface FormProblem {
  field: string;
  message: string;
}

/** A form the page could not send: the alert names the field and what to type (with a 400, as the API's would be). */
export const problemNotice = (problem: FormProblem, locale: Locale): Notice => ({
  kind: 'alert',
  title: catalogMessages(locale).form.check,
  detail: problem.message,
});

const text = (max = 300) => z.string().max(max).optional();

/** The fields of a price, on the product creation form and on the form that adds a price. */
export const priceForm = z.object({
  csrf: text(),
  amount: text(40),
  type: text(20),
  interval: text(10),
  interval_count: text(10),
  price_name: text(),
});
export type PriceForm = z.infer<typeof priceForm>;

/** A whole number typed in a field: undefined when blank, null when it is not one. */
export function wholeNumberOf(value: string | undefined): number | undefined | null {
  const t = (value ?? '').trim();
  if (t === '') return undefined;
  return /^\d{1,12}$/.test(t) ? Number(t) : null;
}

/** A percentage ("10", "12,5", "12.5 %") as basis points (1 = 0.01 %); undefined when it is not one. */
export function basisPointsOf(value: string | undefined): number | undefined {
  const t = (value ?? '').trim().replace(/\s*%$/, '');
  const m = /^(\d{1,9})(?:[,.](\d{1,2}))?$/.exec(t);
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
}

/** A chosen day (yyyy-mm-dd) as the moment it starts, or ends, in Brasília (UTC−3). */
export function dayStart(date: string | undefined): string | undefined {
  return date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T00:00:00.000-03:00`).toISOString() : undefined;
}
export function dayEnd(date: string | undefined): string | undefined {
  return date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T23:59:59.999-03:00`).toISOString() : undefined;
}

/** An amount field: absent when blank (the API says it is required), a problem when not reais. */
export function centsField(
  locale: Locale,
  field: string,
  label: string,
  value: string | undefined,
): { cents?: number; problem?: FormProblem } {
  if ((value ?? '').trim() === '') return {};
  const cents = centsOf(value);
  if (cents === undefined) {
    return { problem: { field, message: catalogMessages(locale).form.notAmount(label, value!.trim()) } };
  }
  return { cents };
}

/** A whole-number field: absent when blank, a problem when it is not a whole number. */
export function countField(
  locale: Locale,
  field: string,
  label: string,
  value: string | undefined,
): { count?: number; problem?: FormProblem } {
  const count = wholeNumberOf(value);
  if (count === null) {
    return { problem: { field, message: catalogMessages(locale).form.notWhole(label, value!.trim()) } };
  }
  return count === undefined ? {} : { count };
}

/** A new price as the product creation and change take it. */
export type NewPrice = RequestBody<'/api/v1/products', 'post'>['prices'][number];

/**
 * A price of the form in the API's terms (prices are in BRL): a recurring price sends its interval,
 * a one-time price sends none, as the form shows the interval for recurring prices only.
 */
export function priceBody(form: PriceForm, locale: Locale): { price: NewPrice } | { problem: FormProblem } {
  const t = catalogMessages(locale).form;
  const amount = centsField(locale, 'amount', t.amount, form.amount);
  if (amount.problem) return { problem: amount.problem };
  const type = (form.type || 'one_time') as NewPrice['type'];
  // An empty amount is left out of the JSON (undefined): the API's refusal names the field.
  const price: NewPrice = { currency: 'brl', unit_amount: amount.cents!, type };
  if (form.price_name?.trim()) price.name = form.price_name.trim();
  if (type === 'recurring') {
    const count = countField(locale, 'interval_count', t.every, form.interval_count);
    if (count.problem) return { problem: count.problem };
    price.interval = (form.interval || undefined) as NewPrice['interval'];
    if (count.count !== undefined) price.interval_count = count.count;
  }
  return { price };
}

/** A discount as its creation takes it (one of the API's combinations of type and duration). */
export type NewDiscount = RequestBody<'/api/v1/discounts', 'post'>;

/** The fields of the discount creation form. */
export const discountForm = z.object({
  csrf: text(),
  name: text(),
  code: text(100),
  type: text(20),
  percent: text(20),
  amount_off: text(40),
  duration: text(20),
  duration_in_months: text(10),
  max_redemptions: text(20),
  starts_on: text(20),
  ends_on: text(20),
  product_ids: formList,
});
export type DiscountForm = z.infer<typeof discountForm>;

/**
 * A discount of the form in the API's terms: a percentage as basis points, a fixed amount in cents of
 * BRL, the months of a repeating duration, the days as moments in Brasília. Only the chosen type's
 * and duration's fields are sent, as the form shows only those.
 */
export function discountBody(form: DiscountForm, locale: Locale): { discount: NewDiscount } | { problem: FormProblem } {
  const t = catalogMessages(locale).form;
  const type = form.type || 'percentage';
  const discount: Record<string, unknown> = { name: form.name ?? '', type, duration: form.duration || 'once' };
  if (form.code?.trim()) discount.code = form.code.trim();
  if (type === 'fixed') {
    const amount = centsField(locale, 'amount_off', t.amountOff, form.amount_off);
    if (amount.problem) return { problem: amount.problem };
    Object.assign(discount, { amount: amount.cents, currency: 'brl' });
  } else if ((form.percent ?? '').trim() !== '') {
    const basisPoints = basisPointsOf(form.percent);
    if (basisPoints === undefined) {
      return { problem: { field: 'percent', message: t.notPercent(form.percent!.trim()) } };
    }
    discount.basis_points = basisPoints;
  }
  if (discount.duration === 'repeating') {
    const months = countField(locale, 'duration_in_months', t.months, form.duration_in_months);
    if (months.problem) return { problem: months.problem };
    discount.duration_in_months = months.count;
  }
  const max = countField(locale, 'max_redemptions', t.maxRedemptions, form.max_redemptions);
  if (max.problem) return { problem: max.problem };
  if (max.count !== undefined) discount.max_redemptions = max.count;
  if (dayStart(form.starts_on)) discount.starts_at = dayStart(form.starts_on);
  if (dayEnd(form.ends_on)) discount.ends_at = dayEnd(form.ends_on);
  if (form.product_ids.length > 0) discount.product_ids = form.product_ids;
  // Built field by field, as the form shows them: the API judges the combination (a percentage without
  // its value, say) and its refusal names the field.
  return { discount: discount as NewDiscount };
}
