import type { ProductBody } from '../../api/schemas/catalog.ts';
import type { DiscountRecord } from '../../api/schemas/discounts.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Check, Confirmation } from './catalog-parts.ts';
import { amount, day, Field, Pager, PostForm, Select, Table, type Column } from './components.ts';
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
export function discountDuration(d: DiscountRecord): string {
  if (d.duration === 'repeating') return `${d.duration_in_months} month${d.duration_in_months === 1 ? '' : 's'}`;
  return d.duration === 'forever' ? 'Forever' : 'Once';
}

export function discountsContent(v: DiscountsView) {
  const path = discountsPath(v.organizationId);
  const names = (d: DiscountRecord) =>
    d.product_ids.length === 0
      ? 'All'
      : d.product_ids.map((id) => v.products.find((p) => p.id === id)?.name ?? id).join(', ');
  const columns: Column<DiscountRecord>[] = [
    { label: 'Name', cell: (d) => d.name },
    { label: 'Code', cell: (d) => (d.code ? html`<code>${d.code}</code>` : '—') },
    { label: 'Off', cell: (d) => discountValue(v.locale, d), numeric: true },
    { label: 'Duration', cell: (d) => discountDuration(d) },
    {
      label: 'Redemptions',
      cell: (d) => `${d.redemptions_count} of ${d.max_redemptions ?? 'unlimited'}`,
    },
    { label: 'Starts', cell: (d) => day(v.locale, d.starts_at) },
    { label: 'Ends', cell: (d) => day(v.locale, d.ends_at) },
    { label: 'Products', cell: names },
    { label: 'Created', cell: (d) => day(v.locale, d.created_at) },
    {
      label: 'Actions',
      cell: (d) => html`<a href=${`${path}/${d.id}/delete`} aria-label=${`Delete ${d.name}`}>Delete</a>`,
    },
  ];
  return html`
    <${CreateForm} ...${v} path=${path} />
    ${
      v.discounts
        ? html`<section aria-labelledby="list-title">
            <h2 id="list-title">Discounts</h2>
            <${Table} caption="Discounts" columns=${columns} rows=${v.discounts.items} empty="No discounts yet." />
            <${Pager} path=${path} page=${v.discounts.page} maxPage=${v.discounts.maxPage} />
          </section>`
        : null
    }
  `;
}

/** The creation form; the fields of the type and duration not chosen hide (dashboard.css) and are not sent. */
function CreateForm(v: DiscountsView & { path: string }) {
  const values = v.values;
  const invalid = (field: string) => v.invalid === field;
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">Create a discount</h2>
    <${PostForm} action=${v.path} csrf=${v.csrf} label="Create a discount">
      <${Field} label="Name" name="name" value=${values?.name} required maxlength="256" />
      <${Field}
        label="Code (optional)"
        name="code"
        value=${values?.code}
        autocomplete="off"
        hint="What buyers type at checkout: letters, digits, - or _. Without a code, apply it through a checkout link."
      />
      <${Select}
        label="Type"
        name="type"
        value=${values?.type ?? 'percentage'}
        options=${[
          ['percentage', 'Percentage off'],
          ['fixed', 'Fixed amount off'],
        ]}
      />
      <div class="percentage-only">
        <${Field}
          label="Percentage off (%)"
          name="percent"
          value=${values?.percent}
          inputmode="decimal"
          invalid=${invalid('percent')}
          hint="e.g. 10 or 12,5."
        />
      </div>
      <div class="fixed-only">
        <${Field}
          label="Amount off (R$)"
          name="amount_off"
          value=${values?.amount_off}
          inputmode="decimal"
          invalid=${invalid('amount_off')}
          hint="In reais, e.g. 20,00."
        />
      </div>
      <${DurationFields} values=${values} invalid=${invalid} />
      <${Field}
        label="Maximum redemptions (optional)"
        name="max_redemptions"
        type="number"
        min="1"
        value=${values?.max_redemptions}
        invalid=${invalid('max_redemptions')}
      />
      <${Field} label="Starts on (optional)" name="starts_on" type="date" value=${values?.starts_on} />
      <${Field}
        label="Ends on (optional)"
        name="ends_on"
        type="date"
        value=${values?.ends_on}
        hint="Days in Brasília time: it applies from the start of the first to the end of the last."
      />
      ${
        v.products.length > 0
          ? html`<fieldset>
              <legend>Only for these products (none checked: every product)</legend>
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
      <button type="submit" class="button">Create discount</button>
    <//>
  </section>`;
}

function DurationFields({ values, invalid }: { values?: DiscountValues; invalid: (field: string) => boolean }) {
  return html`<${Select}
      label="Duration on subscriptions"
      name="duration"
      value=${values?.duration ?? 'once'}
      options=${[
        ['once', 'Once: the first payment'],
        ['forever', 'Forever: every payment'],
        ['repeating', 'Repeating: a number of months'],
      ]}
    />
    <div class="repeating-only">
      <${Field}
        label="Months"
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
  const path = discountsPath(v.organizationId);
  const d = v.discount;
  return html`<${Confirmation}
    action=${`${path}/${d.id}/delete`}
    csrf=${v.csrf}
    button="Delete discount"
    back=${path}
    backLabel="Keep it"
  >
    Delete <strong>${d.name}</strong> (${discountValue(v.locale, d)}
    off${d.code ? html`, code <code>${d.code}</code>` : null})? It no longer applies to new or open checkouts, and its
    code can be used again. Sales keep their record of it. This cannot be undone.
  <//>`;
}
