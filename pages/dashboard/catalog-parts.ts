import type { ComponentChildren, VNode } from 'preact';
import type { PriceBody } from '../../api/schemas/catalog.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { amount, Field, PostButton, Select } from './components.ts';

/** What the catalog's pages (products, checkout links, discounts) share: price terms, fields, confirmations. */

const INTERVAL_WORDS: Record<string, [string, string]> = {
  day: ['day', 'days'],
  week: ['week', 'weeks'],
  month: ['month', 'months'],
  year: ['year', 'years'],
};

/** How often a price is charged: "One-time", "Every month", "Every 3 months". */
export function priceTerms(price: Pick<PriceBody, 'type' | 'interval' | 'interval_count'>): string {
  if (price.type !== 'recurring' || !price.interval) return 'One-time';
  const count = price.interval_count ?? 1;
  const [one, many] = INTERVAL_WORDS[price.interval] ?? [price.interval, price.interval];
  return count === 1 ? `Every ${one}` : `Every ${count} ${many}`;
}

/** A price in one line: "R$99.90, every month". */
export const priceLine = (locale: Locale, price: PriceBody) =>
  `${amount(locale, price.unit_amount, price.currency)}, ${priceTerms(price).toLowerCase()}`;

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
export function PriceFields({ values, invalid }: { values?: PriceValues; invalid?: string }): VNode {
  return html`<fieldset>
    <legend>Price</legend>
    <${Field}
      label="Amount (R$)"
      name="amount"
      value=${values?.amount}
      inputmode="decimal"
      autocomplete="off"
      invalid=${invalid === 'amount'}
      hint="In reais, e.g. 99,90."
    />
    <${Select}
      label="Billing"
      name="type"
      value=${values?.type ?? 'one_time'}
      options=${[
        ['one_time', 'One-time'],
        ['recurring', 'Recurring'],
      ]}
    />
    <div class="recurring-only">
      <${Select}
        label="Interval"
        name="interval"
        value=${values?.interval ?? 'month'}
        options=${[
          ['month', 'Month'],
          ['year', 'Year'],
          ['week', 'Week'],
          ['day', 'Day'],
        ]}
      />
      <${Field}
        label="Every (number of intervals)"
        name="interval_count"
        type="number"
        min="1"
        value=${values?.interval_count ?? '1'}
        invalid=${invalid === 'interval_count'}
        hint="Recurring prices only: 3 with Month bills every 3 months."
      />
    </div>
    <${Field}
      label="Price label (optional)"
      name="price_name"
      value=${values?.price_name}
      maxlength="256"
      hint="Shown to you only, e.g. Monthly plan."
    />
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
