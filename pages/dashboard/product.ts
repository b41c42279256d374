import type { PriceBody, ProductBody } from '../../api/schemas/catalog.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Confirmation, PriceFields, priceLine, priceTerms, TextArea, type PriceValues } from './catalog-parts.ts';
import { amount, day, Field, PostButton, PostForm, Table, type Column } from './components.ts';
import { catalogMessages } from './messages-catalog.ts';
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
  const t = catalogMessages(v.locale);
  const path = productPath(v.organizationId, product.id);
  const defaultPrice = product.prices.find((p) => p.id === product.default_price_id);
  return html`
    <p><a href=${dashboardPaths.section(v.organizationId, 'products')}>${t.product.all}</a></p>
    <dl class="pairs">
      <dt>${t.products.status}</dt>
      <dd>${product.is_archived ? t.product.archivedNotSold : t.products.active}</dd>
      <dt>${t.product.description}</dt>
      <dd>${product.description ?? '—'}</dd>
      <dt>${t.product.defaultPrice}</dt>
      <dd>${defaultPrice ? priceLine(v.locale, defaultPrice) : '—'}</dd>
      <dt>${t.products.created}</dt>
      <dd>${day(v.locale, product.created_at)}</dd>
      <dt>${t.product.id}</dt>
      <dd><code>${product.id}</code></dd>
    </dl>
    <section aria-labelledby="prices-title">
      <h2 id="prices-title">${t.products.prices}</h2>
      <${Table}
        caption=${t.product.pricesOf(product.name)}
        columns=${priceColumns(v, path)}
        rows=${product.prices}
        empty=${t.product.noPrices}
      />
    </section>
    <section aria-labelledby="add-price-title">
      <h2 id="add-price-title">${t.product.addPrice}</h2>
      <p class="muted">${t.product.pricesFixed}</p>
      <${PostForm} action=${`${path}/prices`} csrf=${v.csrf} label=${t.product.addPrice}>
        <${PriceFields} locale=${v.locale} values=${v.values} invalid=${v.invalid} />
        <button type="submit" class="button">${t.product.addPriceButton}</button>
      <//>
    </section>
    <${DetailsForm} ...${v} path=${path} />
    <section aria-labelledby="archive-title">
      <h2 id="archive-title">${product.is_archived ? t.product.restore : t.product.archive}</h2>
      ${
        product.is_archived
          ? html`<p>${t.product.archivedNote}</p>
              <${PostButton} action=${`${path}/restore`} csrf=${v.csrf} label=${t.product.restoreProduct} />`
          : html`<p>${t.product.archiveNote}</p>
              <div class="actions">
                <a href=${`${path}/archive`} class="button danger">${t.product.archiveProduct}</a>
              </div>`
      }
    </section>
  `;
}

/** The product's name and description; prices are changed by adding and archiving, above. */
function DetailsForm(v: ProductView & { path: string }) {
  const t = catalogMessages(v.locale);
  return html`<section aria-labelledby="details-title">
    <h2 id="details-title">${t.product.details}</h2>
    <${PostForm} action=${`${v.path}/details`} csrf=${v.csrf} label=${t.product.details}>
      <${Field}
        label=${t.products.name}
        name="name"
        value=${v.values?.name ?? v.product.name}
        required
        maxlength="256"
      />
      <${TextArea}
        label=${t.products.description}
        name="description"
        value=${v.values?.description ?? v.product.description}
        hint=${t.products.descriptionHint}
      />
      <button type="submit" class="button">${t.product.saveDetails}</button>
    <//>
  </section>`;
}

function priceColumns(v: ProductView, path: string): Column<PriceBody>[] {
  const isDefault = (p: PriceBody) => p.id === v.product.default_price_id;
  const t = catalogMessages(v.locale);
  return [
    { label: t.product.amount, cell: (p) => amount(v.locale, p.unit_amount, p.currency), numeric: true },
    { label: t.price.billing, cell: (p) => priceTerms(v.locale, p) },
    { label: t.product.label, cell: (p) => p.name ?? '—' },
    { label: t.products.status, cell: (p) => (p.active ? t.products.active : t.products.archived) },
    { label: t.product.isDefault, cell: (p) => (isDefault(p) ? t.product.isDefault : '—') },
    { label: t.products.created, cell: (p) => day(v.locale, p.created_at) },
    {
      label: t.product.actions,
      cell: (p) =>
        p.active
          ? html`<div class="actions">
              ${
                isDefault(p)
                  ? null
                  : html`<${PostButton}
                      action=${`${path}/default-price`}
                      csrf=${v.csrf}
                      label=${t.product.makeDefault}
                      fields=${{ price_id: p.id }}
                    />`
              }
              <a href=${`${path}/prices/${p.id}/archive`} aria-label=${t.product.archivePrice(priceLine(v.locale, p))}
                >${t.product.archive}</a
              >
            </div>`
          : null,
    },
  ];
}

/** The confirmation before a product is archived. */
export function archiveProductConfirmation(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  product: ProductBody;
}) {
  const t = catalogMessages(v.locale).product;
  const path = productPath(v.organizationId, v.product.id);
  return html`<${Confirmation}
    action=${`${path}/archive`}
    csrf=${v.csrf}
    button=${t.archiveProduct}
    back=${path}
    backLabel=${t.keepIt}
  >
    ${t.archiveProductBody(html`<strong>${v.product.name}</strong>`)}
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
  const t = catalogMessages(v.locale).product;
  const path = productPath(v.organizationId, v.product.id);
  return html`<${Confirmation}
    action=${`${path}/prices/${v.price.id}/archive`}
    csrf=${v.csrf}
    button=${t.archivePriceButton}
    back=${path}
    backLabel=${t.keepIt}
  >
    ${t.archivePriceBody(html`<strong>${priceLine(v.locale, v.price)}</strong>`, html`<strong>${v.product.name}</strong>`)}
  <//>`;
}
