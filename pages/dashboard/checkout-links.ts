import type { PriceBody, ProductBody } from '../../api/schemas/catalog.ts';
import type { CheckoutLinkRecord } from '../../api/schemas/checkout-links.ts';
import type { DiscountRecord } from '../../api/schemas/discounts.ts';
import { money, type Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Check, Confirmation } from './catalog-parts.ts';
import { Copyable, day, Field, Pager, PostButton, PostForm, Select, Table, type Column } from './components.ts';
import { linkMessages, type LinkMessages } from './messages-links.ts';
import { dashboardPaths } from './paths.ts';

/**
 * Checkout links: create one for one or more products, copy its URL, edit it, archive it behind a
 * confirmation, restore it. Words from messages-links.ts.
 */

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

/** A link's form as posted (creation and edit alike). */
export interface CheckoutLinkValues {
  product_ids?: string[];
  label?: string;
  success_url?: string;
  cancel_url?: string;
  allow_discount_codes?: string;
  discount_id?: string;
}

export const linksPath = (organizationId: string) => dashboardPaths.section(organizationId, 'checkout-links');

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

/** The form's values of a saved link: what the edit page starts from. */
export function valuesOf(link: CheckoutLinkRecord): CheckoutLinkValues {
  return {
    product_ids: [...link.product_ids],
    label: link.label ?? '',
    success_url: link.success_url ?? '',
    cancel_url: link.cancel_url ?? '',
    allow_discount_codes: link.allow_discount_codes ? 'true' : '',
    discount_id: link.discount_id ?? '',
  };
}

export function checkoutLinksContent(v: CheckoutLinksView) {
  const t = linkMessages(v.locale);
  const path = linksPath(v.organizationId);
  const inUse = v.links?.active.filter((l) => !sellsNothing(l, v.products)) ?? [];
  const stalled = v.links?.active.filter((l) => sellsNothing(l, v.products)) ?? [];
  const named: Column<CheckoutLinkRecord>[] = [
    { label: t.columns.label, cell: (l) => l.label ?? '—' },
    { label: t.columns.products, cell: (l) => productNames(l, v.products) },
  ];
  const active: Column<CheckoutLinkRecord>[] = [
    ...named,
    {
      label: t.columns.url,
      cell: (l) => copyableUrl(l, t.copyUrl(linkName(l, v.products)), v.locale),
    },
    { label: t.columns.codes, cell: (l) => (l.allow_discount_codes ? t.codesAllowed : t.codesRefused) },
    { label: t.columns.created, cell: (l) => day(v.locale, l.created_at) },
    {
      label: t.columns.actions,
      cell: (l) =>
        html`<span class="actions"
          ><a href=${`${path}/${l.id}/edit`} aria-label=${t.editNamed(linkName(l, v.products))}>${t.edit}</a>
          <a href=${`${path}/${l.id}/archive`} aria-label=${t.archiveNamed(linkName(l, v.products))}
            >${t.archive}</a
          ></span
        >`,
    },
  ];
  const archived: Column<CheckoutLinkRecord>[] = [
    ...named,
    { label: t.columns.url, cell: (l) => html`<code>${l.url}</code>` },
    { label: t.columns.archived, cell: (l) => day(v.locale, l.updated_at) },
    {
      label: t.columns.actions,
      cell: (l) => html`<${PostButton} action=${`${path}/${l.id}/restore`} csrf=${v.csrf} label=${t.restore} />`,
    },
  ];
  return html`
    <section aria-labelledby="create-title">
      <h2 id="create-title">${t.createTitle}</h2>
      <${LinkForm}
        locale=${v.locale}
        action=${path}
        csrf=${v.csrf}
        label=${t.createTitle}
        button=${t.create}
        choices=${v.sellable}
        discounts=${v.discounts}
        values=${v.values}
      />
    </section>
    ${
      v.links
        ? html`<section aria-labelledby="active-title">
              <h2 id="active-title">${t.listTitle}</h2>
              <${Table} caption=${t.inUseCaption} columns=${active} rows=${inUse} empty=${t.noneInUse} />
              <${Pager} path=${path} page=${v.links.page} maxPage=${v.links.maxPage} locale=${v.locale} />
            </section>
            ${
              stalled.length > 0
                ? html`<section aria-labelledby="stalled-title">
                    <h2 id="stalled-title">${t.stalledTitle}</h2>
                    <${Table} caption=${t.stalledCaption} columns=${active} rows=${stalled} empty="" />
                  </section>`
                : null
            }
            <section aria-labelledby="archived-title">
              <h2 id="archived-title">${t.archivedTitle}</h2>
              <${Table}
                caption=${t.archivedCaption}
                columns=${archived}
                rows=${v.links.archived}
                empty=${t.noneArchived}
              />
            </section>`
        : null
    }
  `;
}

/** The link's URL with a copy button named after the link. */
const copyableUrl = (link: CheckoutLinkRecord, label: string, locale: Locale) =>
  html`<${Copyable} id=${`link-${link.id}`} value=${link.url} label=${label} locale=${locale} />`;

/** The edit page of a link: the same form as creation, filled with the link (or with what was posted). */
export function editLinkContent(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  link: CheckoutLinkRecord;
  /** Every product (up to a page of 100): the link's own stay listed even when archived, to be unchecked. */
  products: ProductBody[];
  sellable: ProductBody[];
  discounts: DiscountRecord[];
  values?: CheckoutLinkValues;
}) {
  const t = linkMessages(v.locale);
  const path = linksPath(v.organizationId);
  const own = v.products.filter((p) => v.link.product_ids.includes(p.id) && !v.sellable.some((s) => s.id === p.id));
  return html`<${LinkForm}
      locale=${v.locale}
      action=${`${path}/${v.link.id}/edit`}
      csrf=${v.csrf}
      label=${t.editTitle(linkName(v.link, v.products))}
      button=${t.save}
      choices=${[...v.sellable, ...own]}
      discounts=${v.discounts}
      values=${v.values ?? valuesOf(v.link)}
      url=${v.link.url}
    />
    <p><a href=${path}>${t.backToLinks}</a></p>`;
}

/** "R$ 49,90" or "R$ 99,90 por mês": a product's default price in the form's words. */
function priceWords(t: LinkMessages, locale: Locale, price: PriceBody): string {
  const amount = money(locale, price.unit_amount, price.currency);
  if (price.type !== 'recurring' || !price.interval) return amount;
  const count = price.interval_count ?? 1;
  const every = count === 1 ? t.every[price.interval] : t.everyN(count, t.units[price.interval] ?? price.interval);
  return `${amount} ${every ?? ''}`.trim();
}

/**
 * A link's form: the products it sells (checkboxes, repeated `product_ids` fields, so it works without
 * JavaScript), a label, where the buyer goes after, discounts.
 */
function LinkForm(v: {
  locale: Locale;
  action: string;
  csrf: string;
  label: string;
  button: string;
  choices: ProductBody[];
  discounts: DiscountRecord[];
  values?: CheckoutLinkValues;
  url?: string;
}) {
  const t = linkMessages(v.locale);
  const values = v.values;
  const discounts: [string, string][] = [
    ['', t.noDiscount],
    ...v.discounts.map((d): [string, string] => [d.id, d.code ? `${d.name} (${d.code})` : d.name]),
  ];
  const option = (p: ProductBody) => {
    const price = p.prices.find((pr) => pr.id === p.default_price_id);
    return price ? t.productOption(p.name, priceWords(t, v.locale, price)) : p.name;
  };
  return html`<${PostForm} action=${v.action} csrf=${v.csrf} label=${v.label}>
    ${v.url ? html`<p><code>${v.url}</code></p>` : null}
    <fieldset aria-describedby="products-hint">
      <legend>${t.products}</legend>
      <p class="hint" id="products-hint">${v.choices.length > 0 ? t.productsHint : t.noProducts}</p>
      ${v.choices.map(
        (p) =>
          html`<${Check}
            label=${option(p)}
            name="product_ids"
            value=${p.id}
            checked=${values?.product_ids?.includes(p.id)}
          />`,
      )}
    </fieldset>
    <${Field} label=${t.label} name="label" value=${values?.label} maxlength="256" />
    <${Field}
      label=${t.successUrl}
      name="success_url"
      type="url"
      value=${values?.success_url}
      hint=${t.successUrlHint}
    />
    <${Field} label=${t.cancelUrl} name="cancel_url" type="url" value=${values?.cancel_url} hint=${t.cancelUrlHint} />
    <${Check}
      label=${t.allowCodes}
      name="allow_discount_codes"
      checked=${values ? values.allow_discount_codes === 'true' : true}
    />
    <${Select} label=${t.discount} name="discount_id" value=${values?.discount_id ?? ''} options=${discounts} />
    <button type="submit" class="button">${v.button}</button>
  <//>`;
}

/** The confirmation before a link is archived. */
export function archiveLinkConfirmation(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  link: CheckoutLinkRecord;
  products: ProductBody[];
}) {
  const t = linkMessages(v.locale);
  const path = linksPath(v.organizationId);
  return html`<${Confirmation}
    action=${`${path}/${v.link.id}/archive`}
    csrf=${v.csrf}
    button=${t.archiveButton}
    back=${path}
    backLabel=${t.keep}
  >
    ${t.archiveBefore} <strong>${linkName(v.link, v.products)}</strong> (<code>${v.link.url}</code>)${t.archiveAfter}
  <//>`;
}
