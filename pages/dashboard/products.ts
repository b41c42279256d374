import type { ProductBody } from '../../api/schemas/catalog.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { PriceFields, priceLine, TextArea, type PriceValues } from './catalog-parts.ts';
import { day, Field, Pager, PostForm, Select, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/** Products: the list (active, archived or both, searched by name) and the form that creates one with its price. */

/** Which products the list shows: the API's is_archived filter, or none. */
export const PRODUCT_FILTERS = [
  ['active', 'Active products'],
  ['archived', 'Archived products'],
  ['all', 'All products'],
] as const;

export interface ProductListView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  products: { items: ProductBody[]; page: number; maxPage: number } | null;
  filter: { show: string; query?: string };
  /** The creation form's values after a refusal, and the field it names. */
  values?: ProductValues;
  invalid?: string;
}

export interface ProductValues extends PriceValues {
  name?: string;
  description?: string;
}

export function productListContent(v: ProductListView) {
  const path = dashboardPaths.section(v.organizationId, 'products');
  const columns: Column<ProductBody>[] = [
    { label: 'Name', cell: (p) => html`<a href=${`${path}/${p.id}`}>${p.name}</a>` },
    { label: 'Prices', cell: (p) => PriceList({ locale: v.locale, product: p }) },
    { label: 'Status', cell: (p) => (p.is_archived ? 'Archived' : 'Active') },
    { label: 'Created', cell: (p) => day(v.locale, p.created_at) },
  ];
  return html`
    <${CreateForm} path=${path} csrf=${v.csrf} values=${v.values} invalid=${v.invalid} />
    <section aria-labelledby="list-title">
      <h2 id="list-title">Products</h2>
      <${FilterForm} path=${path} filter=${v.filter} />
      ${
        v.products
          ? html`<${Table}
                caption=${PRODUCT_FILTERS.find(([f]) => f === v.filter.show)?.[1] ?? 'Products'}
                columns=${columns}
                rows=${v.products.items}
                empty="No products here."
              />
              <${Pager}
                path=${path}
                page=${v.products.page}
                maxPage=${v.products.maxPage}
                query=${{ show: v.filter.show, query: v.filter.query }}
              />`
          : null
      }
    </section>
  `;
}

/** A product's prices, each on its line; archived prices say so. */
function PriceList({ locale, product }: { locale: Locale; product: ProductBody }) {
  if (product.prices.length === 0) return '—';
  return html`<ul class="plain">
    ${product.prices.map(
      (price) =>
        html`<li>${priceLine(locale, price)}${price.active ? null : html` <span class="muted">(archived)</span>`}</li>`,
    )}
  </ul>`;
}

function FilterForm({ path, filter }: { path: string; filter: ProductListView['filter'] }) {
  return html`<form method="get" action=${path} class="filter-form" aria-label="Filter products">
    <${Select} label="Show" name="show" value=${filter.show} options=${PRODUCT_FILTERS} />
    <${Field} label="Name contains" name="query" type="search" value=${filter.query} />
    <button type="submit" class="button secondary">Filter</button>
  </form>`;
}

/** The creation form: the product's name and description, and its first price. */
function CreateForm({
  path,
  csrf,
  values,
  invalid,
}: {
  path: string;
  csrf: string;
  values?: ProductValues;
  invalid?: string;
}) {
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">Create a product</h2>
    <${PostForm} action=${path} csrf=${csrf} label="Create a product">
      <${Field} label="Name" name="name" value=${values?.name} required maxlength="256" />
      <${TextArea}
        label="Description (optional)"
        name="description"
        value=${values?.description}
        hint="Shown to buyers on the checkout page. Markdown."
      />
      <${PriceFields} values=${values} invalid=${invalid} />
      <button type="submit" class="button">Create product</button>
    <//>
  </section>`;
}
