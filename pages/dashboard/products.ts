import type { ProductBody } from '../../api/schemas/catalog.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { PriceFields, priceLine, TextArea, type PriceValues } from './catalog-parts.ts';
import { day, Field, Pager, PostForm, Select, Table, type Column } from './components.ts';
import { catalogMessages } from './messages-catalog.ts';
import { dashboardPaths } from './paths.ts';

/** Products: the list (active, archived or both, searched by name) and the form that creates one with its price. */

/** Which products the list shows: the API's is_archived filter, or none. */
export const PRODUCT_FILTERS = ['active', 'archived', 'all'] as const;

const filterOptions = (locale: Locale) =>
  PRODUCT_FILTERS.map((f) => [f, catalogMessages(locale).products.filters[f]] as const);

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
  const t = catalogMessages(v.locale).products;
  const path = dashboardPaths.section(v.organizationId, 'products');
  const columns: Column<ProductBody>[] = [
    { label: t.name, cell: (p) => html`<a href=${`${path}/${p.id}`}>${p.name}</a>` },
    { label: t.prices, cell: (p) => PriceList({ locale: v.locale, product: p }) },
    { label: t.status, cell: (p) => (p.is_archived ? t.archived : t.active) },
    { label: t.created, cell: (p) => day(v.locale, p.created_at) },
  ];
  return html`
    <${CreateForm} locale=${v.locale} path=${path} csrf=${v.csrf} values=${v.values} invalid=${v.invalid} />
    <section aria-labelledby="list-title">
      <h2 id="list-title">${t.title}</h2>
      <${FilterForm} locale=${v.locale} path=${path} filter=${v.filter} />
      ${
        v.products
          ? html`<${Table}
                caption=${filterOptions(v.locale).find(([f]) => f === v.filter.show)?.[1] ?? t.title}
                columns=${columns}
                rows=${v.products.items}
                empty=${t.empty}
              />
              <${Pager}
                locale=${v.locale}
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
        html`<li>
          ${priceLine(locale, price)}${
            price.active ? null : html` <span class="muted">${catalogMessages(locale).products.priceArchived}</span>`
          }
        </li>`,
    )}
  </ul>`;
}

function FilterForm({ locale, path, filter }: { locale: Locale; path: string; filter: ProductListView['filter'] }) {
  const t = catalogMessages(locale).products;
  return html`<form method="get" action=${path} class="filter-form" aria-label=${t.filterLabel}>
    <${Select} label=${t.show} name="show" value=${filter.show} options=${filterOptions(locale)} />
    <${Field} label=${t.nameContains} name="query" type="search" value=${filter.query} />
    <button type="submit" class="button secondary">${t.filter}</button>
  </form>`;
}

/** The creation form: the product's name and description, and its first price. */
function CreateForm({
  locale,
  path,
  csrf,
  values,
  invalid,
}: {
  locale: Locale;
  path: string;
  csrf: string;
  values?: ProductValues;
  invalid?: string;
}) {
  const t = catalogMessages(locale).products;
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">${t.create}</h2>
    <${PostForm} action=${path} csrf=${csrf} label=${t.create}>
      <${Field} label=${t.name} name="name" value=${values?.name} required maxlength="256" />
      <${TextArea} label=${t.description} name="description" value=${values?.description} hint=${t.descriptionHint} />
      <${PriceFields} locale=${locale} values=${values} invalid=${invalid} />
      <button type="submit" class="button">${t.createButton}</button>
    <//>
  </section>`;
}
