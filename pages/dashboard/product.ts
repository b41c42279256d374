import type { PriceBody, ProductBody } from '../../api/schemas/catalog.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Confirmation, PriceFields, priceLine, priceTerms, TextArea, type PriceValues } from './catalog-parts.ts';
import { amount, day, Field, PostButton, PostForm, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/** One product: its details, its prices (add, make default, archive), and archiving or restoring it. */

export interface ProductView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  product: ProductBody;
  /** A form's values after a refusal (the new price's, or the details'), and the field it names. */
  values?: PriceValues & { name?: string; description?: string };
  invalid?: string;
}

export const productPath = (organizationId: string, productId: string) =>
  `${dashboardPaths.section(organizationId, 'products')}/${productId}`;

export function productContent(v: ProductView) {
  const { product } = v;
  const path = productPath(v.organizationId, product.id);
  const defaultPrice = product.prices.find((p) => p.id === product.default_price_id);
  return html`
    <p><a href=${dashboardPaths.section(v.organizationId, 'products')}>All products</a></p>
    <dl class="pairs">
      <dt>Status</dt>
      <dd>${product.is_archived ? 'Archived: not sold in new checkouts' : 'Active'}</dd>
      <dt>Description</dt>
      <dd>${product.description ?? '—'}</dd>
      <dt>Default price</dt>
      <dd>${defaultPrice ? priceLine(v.locale, defaultPrice) : '—'}</dd>
      <dt>Created</dt>
      <dd>${day(v.locale, product.created_at)}</dd>
      <dt>Id</dt>
      <dd><code>${product.id}</code></dd>
    </dl>
    <section aria-labelledby="prices-title">
      <h2 id="prices-title">Prices</h2>
      <${Table}
        caption=${`Prices of ${product.name}`}
        columns=${priceColumns(v, path)}
        rows=${product.prices}
        empty="No prices."
      />
    </section>
    <section aria-labelledby="add-price-title">
      <h2 id="add-price-title">Add a price</h2>
      <p class="muted">
        Prices cannot be changed once created: add a new one, make it the default, archive the old one.
      </p>
      <${PostForm} action=${`${path}/prices`} csrf=${v.csrf} label="Add a price">
        <${PriceFields} values=${v.values} invalid=${v.invalid} />
        <button type="submit" class="button">Add price</button>
      <//>
    </section>
    <${DetailsForm} ...${v} path=${path} />
    <section aria-labelledby="archive-title">
      <h2 id="archive-title">${product.is_archived ? 'Restore' : 'Archive'}</h2>
      ${
        product.is_archived
          ? html`<p>This product is archived. Restored, it can be sold again.</p>
              <${PostButton} action=${`${path}/restore`} csrf=${v.csrf} label="Restore product" />`
          : html`<p>An archived product stays readable but is no longer sold in new checkouts.</p>
              <div class="actions"><a href=${`${path}/archive`} class="button danger">Archive product</a></div>`
      }
    </section>
  `;
}

/** The product's name and description; prices are changed by adding and archiving, above. */
function DetailsForm(v: ProductView & { path: string }) {
  return html`<section aria-labelledby="details-title">
    <h2 id="details-title">Details</h2>
    <${PostForm} action=${`${v.path}/details`} csrf=${v.csrf} label="Details">
      <${Field} label="Name" name="name" value=${v.values?.name ?? v.product.name} required maxlength="256" />
      <${TextArea}
        label="Description (optional)"
        name="description"
        value=${v.values?.description ?? v.product.description}
        hint="Shown to buyers on the checkout page. Markdown."
      />
      <button type="submit" class="button">Save details</button>
    <//>
  </section>`;
}

function priceColumns(v: ProductView, path: string): Column<PriceBody>[] {
  const isDefault = (p: PriceBody) => p.id === v.product.default_price_id;
  return [
    { label: 'Amount', cell: (p) => amount(v.locale, p.unit_amount, p.currency), numeric: true },
    { label: 'Billing', cell: (p) => priceTerms(p) },
    { label: 'Label', cell: (p) => p.name ?? '—' },
    { label: 'Status', cell: (p) => (p.active ? 'Active' : 'Archived') },
    { label: 'Default', cell: (p) => (isDefault(p) ? 'Default' : '—') },
    { label: 'Created', cell: (p) => day(v.locale, p.created_at) },
    {
      label: 'Actions',
      cell: (p) =>
        p.active
          ? html`<div class="actions">
              ${
                isDefault(p)
                  ? null
                  : html`<${PostButton}
                      action=${`${path}/default-price`}
                      csrf=${v.csrf}
                      label="Make default"
                      fields=${{ price_id: p.id }}
                    />`
              }
              <a href=${`${path}/prices/${p.id}/archive`} aria-label=${`Archive the price ${priceLine(v.locale, p)}`}
                >Archive</a
              >
            </div>`
          : null,
    },
  ];
}

/** The confirmation before a product is archived. */
export function archiveProductConfirmation(v: { organizationId: string; csrf: string; product: ProductBody }) {
  const path = productPath(v.organizationId, v.product.id);
  return html`<${Confirmation}
    action=${`${path}/archive`}
    csrf=${v.csrf}
    button="Archive product"
    back=${path}
    backLabel="Keep it"
  >
    Archive <strong>${v.product.name}</strong>? It stays readable, with its prices, but is no longer sold: checkout
    links with it stop opening checkouts. You can restore it later.
  <//>`;
}

/** The confirmation before a price is archived. */
export function archivePriceConfirmation(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  product: ProductBody;
  price: PriceBody;
}) {
  const path = productPath(v.organizationId, v.product.id);
  return html`<${Confirmation}
    action=${`${path}/prices/${v.price.id}/archive`}
    csrf=${v.csrf}
    button="Archive price"
    back=${path}
    backLabel="Keep it"
  >
    Archive the price <strong>${priceLine(v.locale, v.price)}</strong> of <strong>${v.product.name}</strong>? It is no
    longer offered in new checkouts; subscriptions on it go on. Prices cannot be restored.
  <//>`;
}
