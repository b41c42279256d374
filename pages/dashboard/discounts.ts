import type { ProductBody } from '../../api/schemas/catalog.ts';
import type { DiscountRecord } from '../../api/schemas/discounts.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Check, Confirmation } from './catalog-parts.ts';
import { amount, day, Field, Pager, PostForm, Select, Table, type Column } from './components.ts';
import { catalogMessages } from './messages-catalog.ts';
import { dashboardPaths } from './paths.ts';

/** Discounts: the list, the form that creates one (percentage or fixed, its duration and limits), deletion. */

export interface DiscountsView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  discounts: { items: DiscountRecord[]; page: number; maxPage: number } | null;
  /** The organization's products (up to 100), to restrict a discount to some of them. */
  products: ProductBody[];
  values?: DiscountValues;
  invalid?: string;
}

export interface DiscountValues {
  name?: string;
  code?: string;
  type?: string;
  percent?: string;
  amount_off?: string;
  duration?: string;
  duration_in_months?: string;
  max_redemptions?: string;
  starts_on?: string;
  ends_on?: string;
  product_ids?: string[];
}

const discountsPath = (organizationId: string) => dashboardPaths.section(organizationId, 'discounts');

/** What the discount takes off: "10%", "12.5%" or "R$5.00". */
export function discountValue(locale: Locale, d: DiscountRecord): string {
  if (d.type === 'fixed') return amount(locale, d.amount, d.currency ?? 'brl');
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 }).format(
    (d.basis_points ?? 0) / 10_000,
  );
}

/** How long it applies to a subscription. */
export function discountDuration(locale: Locale, d: DiscountRecord): string {
  const t = catalogMessages(locale).discounts;
  if (d.duration === 'repeating') return t.months(d.duration_in_months ?? 0);
  return d.duration === 'forever' ? t.forever : t.once;
}

export function discountsContent(v: DiscountsView) {
  const t = catalogMessages(v.locale).discounts;
  const path = discountsPath(v.organizationId);
  const names = (d: DiscountRecord) =>
    d.product_ids.length === 0
      ? t.allProducts
      : d.product_ids.map((id) => v.products.find((p) => p.id === id)?.name ?? id).join(', ');
  const columns: Column<DiscountRecord>[] = [
    { label: t.name, cell: (d) => d.name },
    { label: t.code, cell: (d) => (d.code ? html`<code>${d.code}</code>` : '—') },
    { label: t.off, cell: (d) => discountValue(v.locale, d), numeric: true },
    { label: t.duration, cell: (d) => discountDuration(v.locale, d) },
    { label: t.redemptions, cell: (d) => t.redemptionsOf(d.redemptions_count, d.max_redemptions ?? null) },
    { label: t.starts, cell: (d) => day(v.locale, d.starts_at) },
    { label: t.ends, cell: (d) => day(v.locale, d.ends_at) },
    { label: t.products, cell: names },
    { label: t.created, cell: (d) => day(v.locale, d.created_at) },
    {
      label: t.actions,
      cell: (d) => html`<a href=${`${path}/${d.id}/delete`} aria-label=${t.deleteLabel(d.name)}>${t.delete}</a>`,
    },
  ];
  return html`
    <${CreateForm} ...${v} path=${path} />
    ${
      v.discounts
        ? html`<section aria-labelledby="list-title">
            <h2 id="list-title">${t.title}</h2>
            <${Table} caption=${t.title} columns=${columns} rows=${v.discounts.items} empty=${t.empty} />
            <${Pager} locale=${v.locale} path=${path} page=${v.discounts.page} maxPage=${v.discounts.maxPage} />
          </section>`
        : null
    }
  `;
}

/** The creation form; the fields of the type and duration not chosen hide (dashboard.css) and are not sent. */
function CreateForm(v: DiscountsView & { path: string }) {
  const t = catalogMessages(v.locale).discounts;
  const values = v.values;
  const invalid = (field: string) => v.invalid === field;
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">${t.create}</h2>
    <${PostForm} action=${v.path} csrf=${v.csrf} label=${t.create}>
      <${Field} label=${t.name} name="name" value=${values?.name} required maxlength="256" />
      <${Field} label=${t.codeOptional} name="code" value=${values?.code} autocomplete="off" hint=${t.codeHint} />
      <${Select}
        label=${t.type}
        name="type"
        value=${values?.type ?? 'percentage'}
        options=${[
          ['percentage', t.percentage],
          ['fixed', t.fixed],
        ]}
      />
      <div class="percentage-only">
        <${Field}
          label=${t.percentOff}
          name="percent"
          value=${values?.percent}
          inputmode="decimal"
          invalid=${invalid('percent')}
          hint=${t.percentHint}
        />
      </div>
      <div class="fixed-only">
        <${Field}
          label=${t.amountOff}
          name="amount_off"
          value=${values?.amount_off}
          inputmode="decimal"
          invalid=${invalid('amount_off')}
          hint=${t.amountOffHint}
        />
      </div>
      <${DurationFields} locale=${v.locale} values=${values} invalid=${invalid} />
      <${Field}
        label=${t.maxRedemptions}
        name="max_redemptions"
        type="number"
        min="1"
        value=${values?.max_redemptions}
        invalid=${invalid('max_redemptions')}
      />
      <${Field} label=${t.startsOn} name="starts_on" type="date" value=${values?.starts_on} />
      <${Field} label=${t.endsOn} name="ends_on" type="date" value=${values?.ends_on} hint=${t.endsHint} />
      ${
        v.products.length > 0
          ? html`<fieldset>
              <legend>${t.onlyProducts}</legend>
              ${v.products.map(
                (p) =>
                  html`<${Check}
                    label=${p.name}
                    name="product_ids"
                    value=${p.id}
                    checked=${values?.product_ids?.includes(p.id)}
                  />`,
              )}
            </fieldset>`
          : null
      }
      <button type="submit" class="button">${t.createButton}</button>
    <//>
  </section>`;
}

function DurationFields({
  locale,
  values,
  invalid,
}: {
  locale: Locale;
  values?: DiscountValues;
  invalid: (field: string) => boolean;
}) {
  const t = catalogMessages(locale).discounts;
  return html`<${Select}
      label=${t.durationLabel}
      name="duration"
      value=${values?.duration ?? 'once'}
      options=${[
        ['once', t.durationOnce],
        ['forever', t.durationForever],
        ['repeating', t.durationRepeating],
      ]}
    />
    <div class="repeating-only">
      <${Field}
        label=${t.monthsLabel}
        name="duration_in_months"
        type="number"
        min="1"
        value=${values?.duration_in_months}
        invalid=${invalid('duration_in_months')}
      />
    </div>`;
}

/** The confirmation before a discount is deleted. */
export function deleteDiscountConfirmation(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  discount: DiscountRecord;
}) {
  const t = catalogMessages(v.locale).discounts;
  const path = discountsPath(v.organizationId);
  const d = v.discount;
  return html`<${Confirmation}
    action=${`${path}/${d.id}/delete`}
    csrf=${v.csrf}
    button=${t.deleteButton}
    back=${path}
    backLabel=${t.keepIt}
  >
    ${t.deleteBody(
      html`<strong>${d.name}</strong>`,
      discountValue(v.locale, d),
      d.code ? html`<code>${d.code}</code>` : null,
    )}
  <//>`;
}
