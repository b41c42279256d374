import type { ComponentChildren, VNode } from 'preact';
import { messagesFor as checkoutMessages } from '../checkout/messages.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Select } from './components.ts';
import { commerceMessages } from './messages-commerce.ts';
import { dashboardPaths } from './paths.ts';

/** What the commerce sections (customers, subscriptions, sales, refunds, extra charges) share. */

/** A page of an API list, as every list route answers. */
export interface ListPage<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

/** The e-mail (and name) of each customer, and the name of each product, that a page shows by id. */
export interface Names {
  customers: Map<string, { email: string; name: string | null } | null>;
  products: Map<string, string | null>;
}

/** The page of one record of a section, e.g. recordPath(org, 'customers', id). */
export const recordPath = (organizationId: string, section: string, id: string) =>
  `${dashboardPaths.section(organizationId, section)}/${id}`;

/**
 * A status code of the API in the reader's words (messages-commerce.ts); its code when it has none.
 * English until every page that shows statuses passes its locale (decision 0090).
 */
export const statusWord = (status: string, locale: Locale) => commerceMessages(locale).statuses[status] ?? status;

/** A card refusal's reason: the gateway's code and what it means (the checkout's words for it). */
export function declineText(reason: string | null | undefined, locale: Locale): string {
  if (!reason) return '';
  const words = checkoutMessages(locale).declineReasons[reason];
  return words ? `${words} (${reason})` : reason;
}

/** A record's facts as a definition list of [label, value] pairs. */
export function Facts({ rows, label }: { rows: [string, ComponentChildren][]; label: string }): VNode {
  return html`<dl class="facts" aria-label=${label}>
    ${rows.map(
      ([term, value]) =>
        html`<div>
          <dt>${term}</dt>
          <dd>${value}</dd>
        </div>`,
    )}
  </dl>`;
}

/** A link to a customer's page, named by its e-mail (its id when the API no longer shows it). */
export function CustomerLink({
  organizationId,
  id,
  names,
  email,
}: {
  organizationId: string;
  id: string;
  names?: Names;
  /** The e-mail when the record at hand carries it (a sale). */
  email?: string;
}) {
  const shown = email ?? names?.customers.get(id)?.email ?? id;
  return html`<a href=${recordPath(organizationId, 'customers', id)}>${shown}</a>`;
}

/**
 * A list's filter: a GET form of one select (and the other filters kept as hidden fields), so the
 * filtered list has an address of its own.
 */
export function FilterForm({
  action,
  label,
  name,
  value,
  options,
  keep = {},
  locale,
}: {
  action: string;
  label: string;
  name: string;
  value?: string;
  options: readonly (readonly [string, string])[];
  keep?: Record<string, string | undefined>;
  locale: Locale;
}): VNode {
  const t = commerceMessages(locale).generic;
  return html`<form method="get" action=${action} class="filter-form" aria-label=${t.filterBy(label)}>
    ${Object.entries(keep).map(([k, v]) => (v ? html`<input type="hidden" name=${k} value=${v} />` : null))}
    <${Select} label=${label} name=${name} value=${value ?? ''} options=${[['', t.all], ...options]} />
    <button type="submit" class="button secondary">${t.filter}</button>
  </form>`;
}

/** Status filter options of a list: each code with its words. */
export const statusOptions = (statuses: readonly string[], locale: Locale) =>
  statuses.map((s) => [s, statusWord(s, locale)] as const);

/** What a commerce page's pieces need: the reader's locale, the organization, the forms' token, the names. */
export interface CommerceContext {
  locale: Locale;
  organizationId: string;
  csrf: string;
  names: Names;
}

/** No names to show by id: the records at hand carry them (sales, refunds). */
export const noNames = (): Names => ({ customers: new Map(), products: new Map() });
