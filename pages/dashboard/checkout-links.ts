import type { ProductBody } from '../../api/schemas/catalog.ts';
import type { CheckoutLinkRecord } from '../../api/schemas/checkout-links.ts';
import type { DiscountRecord } from '../../api/schemas/discounts.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Check, Confirmation, priceLine } from './catalog-parts.ts';
import { Copyable, day, Field, Pager, PostButton, PostForm, Select, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/** Checkout links: create one for a product, copy its URL, archive it behind a confirmation, restore it. */

export interface CheckoutLinksView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  links: { active: CheckoutLinkRecord[]; archived: CheckoutLinkRecord[]; page: number; maxPage: number } | null;
  /** Every product (up to a page of 100), for the products' names in the lists. */
  products: ProductBody[];
  /** The products a link may sell now, as the API lists them (not archived). */
  sellable: ProductBody[];
  discounts: DiscountRecord[];
  /** The creation form's values after a refusal. */
  values?: CheckoutLinkValues;
}

export interface CheckoutLinkValues {
  product_id?: string;
  label?: string;
  success_url?: string;
  cancel_url?: string;
  allow_discount_codes?: string;
  discount_id?: string;
}

const linksPath = (organizationId: string) => dashboardPaths.section(organizationId, 'checkout-links');

/** A link's name in sentences and buttons: its label, or its products' names. */
export function linkName(link: CheckoutLinkRecord, products: ProductBody[]): string {
  return link.label ?? productNames(link, products);
}

function productNames(link: CheckoutLinkRecord, products: ProductBody[]): string {
  return link.product_ids.map((id) => products.find((p) => p.id === id)?.name ?? id).join(', ');
}

/** A link whose product was archived opens no checkout: it is not "in use", whatever its own state. */
function sellsNothing(link: CheckoutLinkRecord, products: ProductBody[]): boolean {
  return link.product_ids.some((id) => products.find((p) => p.id === id)?.is_archived);
}

export function checkoutLinksContent(v: CheckoutLinksView) {
  const path = linksPath(v.organizationId);
  const inUse = v.links?.active.filter((l) => !sellsNothing(l, v.products)) ?? [];
  const stalled = v.links?.active.filter((l) => sellsNothing(l, v.products)) ?? [];
  const named: Column<CheckoutLinkRecord>[] = [
    { label: 'Label', cell: (l) => l.label ?? '—' },
    { label: 'Products', cell: (l) => productNames(l, v.products) },
  ];
  const active: Column<CheckoutLinkRecord>[] = [
    ...named,
    {
      label: 'URL',
      cell: (l) =>
        html`<${Copyable} id=${`link-${l.id}`} value=${l.url} label=${`Copy the URL of ${linkName(l, v.products)}`} />`,
    },
    { label: 'Discount codes', cell: (l) => (l.allow_discount_codes ? 'Allowed' : 'Not allowed') },
    { label: 'Created', cell: (l) => day(v.locale, l.created_at) },
    {
      label: 'Actions',
      cell: (l) =>
        html`<a href=${`${path}/${l.id}/archive`} aria-label=${`Archive ${linkName(l, v.products)}`}>Archive</a>`,
    },
  ];
  const archived: Column<CheckoutLinkRecord>[] = [
    ...named,
    { label: 'URL', cell: (l) => html`<code>${l.url}</code>` },
    { label: 'Archived', cell: (l) => day(v.locale, l.updated_at) },
    {
      label: 'Actions',
      cell: (l) => html`<${PostButton} action=${`${path}/${l.id}/restore`} csrf=${v.csrf} label="Restore" />`,
    },
  ];
  return html`
    <${CreateForm} ...${v} path=${path} />
    ${
      v.links
        ? html`<section aria-labelledby="active-title">
              <h2 id="active-title">Links</h2>
              <${Table} caption="Links in use" columns=${active} rows=${inUse} empty="No links in use." />
              <${Pager} path=${path} page=${v.links.page} maxPage=${v.links.maxPage} />
            </section>
            ${
              stalled.length > 0
                ? html`<section aria-labelledby="stalled-title">
                    <h2 id="stalled-title">Links of archived products</h2>
                    <${Table}
                      caption="Links whose product is archived: buyers are told it is no longer for sale"
                      columns=${active}
                      rows=${stalled}
                      empty=""
                    />
                  </section>`
                : null
            }
            <section aria-labelledby="archived-title">
              <h2 id="archived-title">Archived links</h2>
              <${Table}
                caption="Archived links: they open no checkout"
                columns=${archived}
                rows=${v.links.archived}
                empty="No archived links."
              />
            </section>`
        : null
    }
  `;
}

/** The creation form: the product (sold at its default price), a label, where the buyer goes after, discounts. */
function CreateForm(v: CheckoutLinksView & { path: string }) {
  const values = v.values;
  const products: [string, string][] = [
    ['', 'Choose a product'],
    ...v.sellable.map((p): [string, string] => {
      const price = p.prices.find((pr) => pr.id === p.default_price_id);
      return [p.id, price ? `${p.name} (${priceLine(v.locale, price)})` : p.name];
    }),
  ];
  const discounts: [string, string][] = [
    ['', 'None'],
    ...v.discounts.map((d): [string, string] => [d.id, d.code ? `${d.name} (${d.code})` : d.name]),
  ];
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">Create a link</h2>
    <${PostForm} action=${v.path} csrf=${v.csrf} label="Create a link">
      <${Select} label="Product" name="product_id" value=${values?.product_id ?? ''} options=${products} />
      <p class="hint">The link sells the product at its default price, set on the product's page.</p>
      <${Field} label="Label (optional)" name="label" value=${values?.label} maxlength="256" />
      <${Field}
        label="Success URL (optional)"
        name="success_url"
        type="url"
        value=${values?.success_url}
        hint="Where the buyer goes after paying. {CHECKOUT_ID} is replaced by the checkout's id."
      />
      <${Field}
        label="Cancel URL (optional)"
        name="cancel_url"
        type="url"
        value=${values?.cancel_url}
        hint="Where a buyer who leaves the checkout goes."
      />
      <${Check}
        label="Allow discount codes"
        name="allow_discount_codes"
        checked=${values ? values.allow_discount_codes === 'true' : true}
      />
      <${Select}
        label="Discount applied to every checkout (optional)"
        name="discount_id"
        value=${values?.discount_id ?? ''}
        options=${discounts}
      />
      <button type="submit" class="button">Create link</button>
    <//>
  </section>`;
}

/** The confirmation before a link is archived. */
export function archiveLinkConfirmation(v: {
  organizationId: string;
  csrf: string;
  link: CheckoutLinkRecord;
  products: ProductBody[];
}) {
  const path = linksPath(v.organizationId);
  return html`<${Confirmation}
    action=${`${path}/${v.link.id}/archive`}
    csrf=${v.csrf}
    button="Archive link"
    back=${path}
    backLabel="Keep it"
  >
    Archive <strong>${linkName(v.link, v.products)}</strong> (<code>${v.link.url}</code>)? Buyers who open it no longer
    get a checkout. You can restore it later.
  <//>`;
}
