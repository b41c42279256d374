import type { CustomerRecord } from '../../use-cases/schemas/customers.ts';
import type { customerSessionSchema } from '../../api/schemas/customer-portal.ts';
import type { SaleBody } from '../../use-cases/schemas/sales.ts';
import type { SubscriptionBody } from '../../api/schemas/subscriptions.ts';
import type { z } from 'zod';
import { html } from '../render.ts';
import { Facts, recordPath, type CommerceContext, type ListPage } from './commerce.ts';
import { Copyable, day, Field, moment, Pager, PostButton, PostForm, Table, type Column } from './components.ts';
import { recordMessages } from './messages-records.ts';
import { dashboardPaths } from './paths.ts';
import { ExportLink } from './record-exports.ts';
import { saleColumns } from './sales.ts';
import { subscriptionColumns } from './subscriptions.ts';

/** Customers: the list with its search and the creation form, and one customer's page with its portal link. */

export type PortalSession = z.infer<typeof customerSessionSchema>;

export interface CustomerFormValues {
  email?: string;
  name?: string;
  tax_id?: string;
}

export interface CustomersView extends CommerceContext {
  list: ListPage<CustomerRecord> | null;
  page: number;
  search?: string;
  values: CustomerFormValues;
}

const taxIdText = (c: CustomerRecord) => (c.tax_id ? `${c.tax_id.type.toUpperCase()} ${c.tax_id.number}` : '—');

export function customersContent(v: CustomersView) {
  const path = dashboardPaths.section(v.organizationId, 'customers');
  const t = recordMessages(v.locale).customers;
  const columns: Column<CustomerRecord>[] = [
    {
      label: t.columns.email,
      cell: (c) => html`<a href=${recordPath(v.organizationId, 'customers', c.id)}>${c.email}</a>`,
    },
    { label: t.columns.name, cell: (c) => c.name ?? '—' },
    { label: t.columns.taxId, cell: taxIdText },
    { label: t.columns.externalId, cell: (c) => c.external_id ?? '—' },
    { label: t.columns.created, cell: (c) => day(v.locale, c.created_at) },
  ];
  const filters = { query: v.search };
  return html`<form method="get" action=${path} class="filter-form" role="search" aria-label=${t.searchLabel}>
      <${Field} label=${t.searchField} name="query" type="search" value=${v.search} maxlength="256" />
      <button type="submit" class="button secondary">${recordMessages(v.locale).search.submit}</button>
    </form>
    ${
      v.list
        ? html`<${ExportLink}
              path=${`${path}/export.csv`}
              query=${filters}
              size=${v.list.pagination.total_count}
              locale=${v.locale}
            />
            <${Table}
              caption=${v.search ? t.matching(v.search) : t.caption}
              columns=${columns}
              rows=${v.list.items}
              empty=${v.search ? t.noMatch : t.empty}
            />
            <${Pager}
              path=${path}
              page=${v.page}
              maxPage=${v.list.pagination.max_page}
              query=${filters}
              locale=${v.locale}
            />`
        : null
    }
    <section aria-labelledby="create-title">
      <h2 id="create-title">${t.create}</h2>
      <${PostForm} action=${path} csrf=${v.csrf} label=${t.create}>
        <${Field} label=${t.columns.email} name="email" type="email" value=${v.values.email} required maxlength="254" />
        <${Field} label=${t.nameOptional} name="name" value=${v.values.name} maxlength="256" />
        <${Field} label=${t.taxIdOptional} name="tax_id" value=${v.values.tax_id} maxlength="32" hint=${t.taxIdHint} />
        <button type="submit" class="button">${t.createSubmit}</button>
      <//>
    </section>`;
}

/** The customers list's rows as CSV cells, in the catalogue's header order (customers.csv). */
export const customerCsvRow = (c: CustomerRecord) => [
  c.id,
  c.email,
  c.name,
  c.tax_id?.number ?? null,
  c.external_id,
  c.created_at,
];

export interface CustomerView extends CommerceContext {
  customer: CustomerRecord;
  subscriptions: ListPage<SubscriptionBody> | null;
  sales: ListPage<SaleBody> | null;
  /** The portal session just opened: its link is shown on this page only. */
  portal?: PortalSession;
}

export function customerContent(v: CustomerView) {
  const c = v.customer;
  const path = recordPath(v.organizationId, 'customers', c.id);
  const t = recordMessages(v.locale);
  const column = t.customers.columns;
  const address = c.billing_address
    ? [c.billing_address.line1, c.billing_address.city, c.billing_address.state, c.billing_address.postal_code]
        .filter(Boolean)
        .concat(c.billing_address.country)
        .join(', ')
    : '—';
  return html`<${Facts}
      label=${t.customer.label}
      rows=${[
        [column.email, c.email],
        [column.name, c.name ?? '—'],
        [column.taxId, taxIdText(c)],
        [column.externalId, c.external_id ?? '—'],
        [t.customer.billingName, c.billing_name ?? '—'],
        [t.customer.billingAddress, address],
        [column.created, moment(v.locale, c.created_at)],
      ]}
    />
    <${PortalLink} path=${path} csrf=${v.csrf} locale=${v.locale} portal=${v.portal} />
    <${Related}
      id="subscriptions-title"
      title=${t.customer.subscriptions}
      more=${`${dashboardPaths.section(v.organizationId, 'subscriptions')}?customer_id=${c.id}`}
      list=${v.subscriptions}
      all=${t.customer.all}
      table=${html`<${Table}
        caption=${t.customer.subscriptionsCaption}
        columns=${subscriptionColumns(v, false)}
        rows=${v.subscriptions?.items ?? []}
        empty=${t.customer.noSubscriptions}
      />`}
    />
    <${Related}
      id="sales-title"
      title=${t.customer.sales}
      more=${`${dashboardPaths.section(v.organizationId, 'sales')}?customer_id=${c.id}`}
      list=${v.sales}
      all=${t.customer.all}
      table=${html`<${Table}
        caption=${t.customer.salesCaption}
        columns=${saleColumns(v, { customer: false })}
        rows=${v.sales?.items ?? []}
        empty=${t.sales.empty}
      />`}
    />`;
}

/** A section of the customer's records: the first page, and a link to all of them when there are more. */
function Related({
  id,
  title,
  more,
  list,
  all,
  table,
}: {
  id: string;
  title: string;
  more: string;
  list: ListPage<unknown> | null;
  all: (count: number) => string;
  table: unknown;
}) {
  return html`<section aria-labelledby=${id}>
    <h2 id=${id}>${title}</h2>
    ${list ? table : null}
    ${list && list.pagination.max_page > 1 ? html`<p><a href=${more}>${all(list.pagination.total_count)}</a></p>` : null}
  </section>`;
}

/** The customer portal: a button that opens a session, and its link (valid one hour) once opened. */
function PortalLink({
  path,
  csrf,
  locale,
  portal,
}: {
  path: string;
  csrf: string;
  locale: CommerceContext['locale'];
  portal?: PortalSession;
}) {
  const t = recordMessages(locale).customer;
  return html`<section aria-labelledby="portal-title">
    <h2 id="portal-title">${t.portal}</h2>
    ${
      portal
        ? html`<div class="secret">
            <p>${t.portalSend(moment(locale, portal.expires_at))}</p>
            <p>
              <${Copyable} id="portal-url" value=${portal.customer_portal_url} label=${t.portalCopy} locale=${locale} />
            </p>
          </div>`
        : html`<p>${t.portalAbout}</p>`
    }
    <${PostButton} action=${`${path}/portal-link`} csrf=${csrf} label=${portal ? t.portalNew : t.portalLink} />
  </section>`;
}
