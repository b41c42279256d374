import type { ComponentChildren, VNode } from 'preact';
import type { PriceBody } from '../../api/schemas/catalog.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { amount, Field, PostButton, Select } from './components.ts';
import { catalogMessages } from './messages-catalog.ts';

/** What the catalog's pages (products, checkout links, discounts) share: price terms, fields, confirmations. */

/** How often a price is charged: "Todo mês", "A cada 3 meses"; "Every month", "Every 3 months". */
export function priceTerms(locale: Locale, price: Pick<PriceBody, 'type' | 'interval' | 'interval_count'>): string {
  const t = catalogMessages(locale).price;
  if (price.type !== 'recurring' || !price.interval) return t.oneTime;
  const count = price.interval_count ?? 1;
  if (count === 1) return t.every[price.interval] ?? price.interval;
  return t.everyN(count, t.units[price.interval] ?? price.interval);
}

/** A price in one line: "R$ 99,90, todo mês"; "R$99.90, every month". */
export const priceLine = (locale: Locale, price: PriceBody) =>
  `${amount(locale, price.unit_amount, price.currency)}, ${priceTerms(locale, price).toLowerCase()}`;

/** The values of a price's fields, as typed. */
export interface PriceValues {
  amount?: string;
  type?: string;
  interval?: string;
  interval_count?: string;
  price_name?: string;
}

/**
 * A price's fields: the amount in reais, one-time or recurring, and for a recurring price its interval
 * (dashboard.css hides those while one-time is chosen; without styles they stay, and are not sent).
 */
export function PriceFields({
  locale,
  values,
  invalid,
}: {
  locale: Locale;
  values?: PriceValues;
  invalid?: string;
}): VNode {
  const t = catalogMessages(locale).price;
  return html`<fieldset>
    <legend>${t.legend}</legend>
    <${Field}
      label=${t.amount}
      name="amount"
      value=${values?.amount}
      inputmode="decimal"
      autocomplete="off"
      invalid=${invalid === 'amount'}
      hint=${t.amountHint}
    />
    <${Select}
      label=${t.billing}
      name="type"
      value=${values?.type ?? 'one_time'}
      options=${[
        ['one_time', t.oneTime],
        ['recurring', t.recurring],
      ]}
    />
    <div class="recurring-only">
      <${Select}
        label=${t.interval}
        name="interval"
        value=${values?.interval ?? 'month'}
        options=${(['month', 'year', 'week', 'day'] as const).map((i) => [i, t.intervals[i]])}
      />
      <${Field}
        label=${t.count}
        name="interval_count"
        type="number"
        min="1"
        value=${values?.interval_count ?? '1'}
        invalid=${invalid === 'interval_count'}
        hint=${t.countHint}
      />
    </div>
    <${Field} label=${t.label} name="price_name" value=${values?.price_name} maxlength="256" hint=${t.labelHint} />
  </fieldset>`;
}

/** A labelled multi-line field. */
export function TextArea({
  label,
  name,
  value,
  hint,
  rows = 3,
}: {
  label: string;
  name: string;
  value?: string | null;
  hint?: string;
  rows?: number;
}): VNode {
  const id = `field-${name}`;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <textarea
      id=${id}
      name=${name}
      rows=${rows}
      value=${value ?? ''}
      aria-describedby=${hint ? `${id}-hint` : undefined}
    ></textarea>
    ${hint ? html`<p class="hint" id=${`${id}-hint`}>${hint}</p>` : null}
  </div>`;
}

/** A labelled checkbox. */
export function Check({
  label,
  name,
  value = 'true',
  checked,
}: {
  label: string;
  name: string;
  value?: string;
  checked?: boolean;
}) {
  return html`<label class="check"
    ><input type="checkbox" name=${name} value=${value} checked=${checked} /> ${label}</label
  >`;
}

/** A confirmation before a change: what it does, the button that does it, and the way back. */
export function Confirmation({
  action,
  csrf,
  button,
  back,
  backLabel,
  children,
}: {
  action: string;
  csrf: string;
  button: string;
  back: string;
  backLabel: string;
  children: ComponentChildren;
}): VNode {
  return html`<p>${children}</p>
    <div class="actions">
      <${PostButton} action=${action} csrf=${csrf} label=${button} danger />
      <a href=${back}>${backLabel}</a>
    </div>`;
}
