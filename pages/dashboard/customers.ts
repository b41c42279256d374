import type { CustomerRecord } from '../../use-cases/schemas/customers.ts';
import type { customerSessionSchema } from '../../api/schemas/customer-portal.ts';
import type { SaleBody } from '../../use-cases/schemas/sales.ts';
import type { SubscriptionBody } from '../../api/schemas/subscriptions.ts';
import type { z } from 'zod';
import { html } from '../render.ts';
import { Facts, recordPath, type CommerceContext, type ListPage } from './commerce.ts';
import { Copyable, day, Field, moment, Pager, PostButton, PostForm, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';
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
  const columns: Column<CustomerRecord>[] = [
    { label: 'E-mail', cell: (c) => html`<a href=${recordPath(v.organizationId, 'customers', c.id)}>${c.email}</a>` },
    { label: 'Name', cell: (c) => c.name ?? '—' },
    { label: 'Tax id', cell: taxIdText },
    { label: 'External id', cell: (c) => c.external_id ?? '—' },
    { label: 'Created', cell: (c) => day(v.locale, c.created_at) },
  ];
  return html`<form method="get" action=${path} class="filter-form" role="search" aria-label="Customers">
      <${Field} label="Search by e-mail or name" name="query" type="search" value=${v.search} maxlength="256" />
      <button type="submit" class="button secondary">Search</button>
    </form>
    ${
      v.list
        ? html`<${Table}
              caption=${v.search ? `Customers matching “${v.search}”` : 'Customers, newest first'}
              columns=${columns}
              rows=${v.list.items}
              empty=${v.search ? 'No customer matches.' : 'No customers yet.'}
            />
            <${Pager} path=${path} page=${v.page} maxPage=${v.list.pagination.max_page} query=${{ query: v.search }} />`
        : null
    }
    <section aria-labelledby="create-title">
      <h2 id="create-title">Create a customer</h2>
      <${PostForm} action=${path} csrf=${v.csrf} label="Create a customer">
        <${Field} label="E-mail" name="email" type="email" value=${v.values.email} required maxlength="254" />
        <${Field} label="Name (optional)" name="name" value=${v.values.name} maxlength="256" />
        <${Field}
          label="CPF or CNPJ (optional)"
          name="tax_id"
          value=${v.values.tax_id}
          maxlength="32"
          hint="With or without punctuation."
        />
        <button type="submit" class="button">Create customer</button>
      <//>
    </section>`;
}

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
  const address = c.billing_address
    ? [c.billing_address.line1, c.billing_address.city, c.billing_address.state, c.billing_address.postal_code]
        .filter(Boolean)
        .concat(c.billing_address.country)
        .join(', ')
    : '—';
  return html`<${Facts}
      label="Customer"
      rows=${[
        ['E-mail', c.email],
        ['Name', c.name ?? '—'],
        ['Tax id', taxIdText(c)],
        ['External id', c.external_id ?? '—'],
        ['Billing name', c.billing_name ?? '—'],
        ['Billing address', address],
        ['Created', moment(v.locale, c.created_at)],
      ]}
    />
    <${PortalLink} path=${path} csrf=${v.csrf} locale=${v.locale} portal=${v.portal} />
    <${Related}
      title="Subscriptions"
      more=${`${dashboardPaths.section(v.organizationId, 'subscriptions')}?customer_id=${c.id}`}
      list=${v.subscriptions}
      table=${html`<${Table}
        caption="This customer's subscriptions, newest first"
        columns=${subscriptionColumns(v, false)}
        rows=${v.subscriptions?.items ?? []}
        empty="No subscriptions."
      />`}
    />
    <${Related}
      title="Sales"
      more=${`${dashboardPaths.section(v.organizationId, 'sales')}?customer_id=${c.id}`}
      list=${v.sales}
      table=${html`<${Table}
        caption="This customer's sales, newest first"
        columns=${saleColumns(v, { customer: false })}
        rows=${v.sales?.items ?? []}
        empty="No sales."
      />`}
    />`;
}

/** A section of the customer's records: the first page, and a link to all of them when there are more. */
function Related({
  title,
  more,
  list,
  table,
}: {
  title: string;
  more: string;
  list: ListPage<unknown> | null;
  table: unknown;
}) {
  const id = `${title.toLowerCase()}-title`;
  return html`<section aria-labelledby=${id}>
    <h2 id=${id}>${title}</h2>
    ${list ? table : null}
    ${list && list.pagination.max_page > 1 ? html`<p><a href=${more}>All ${list.pagination.total_count}</a></p>` : null}
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
  return html`<section aria-labelledby="portal-title">
    <h2 id="portal-title">Customer portal</h2>
    ${
      portal
        ? html`<div class="secret">
            <p>
              ${`Send this link to the customer: it opens their portal signed in, until ${moment(locale, portal.expires_at)}.`}
            </p>
            <p><${Copyable} id="portal-url" value=${portal.customer_portal_url} label="Copy the portal link" /></p>
          </div>`
        : html`<p>A link that signs the customer in to their portal (subscriptions, purchases, billing details).</p>`
    }
    <${PostButton} action=${`${path}/portal-link`} csrf=${csrf} label=${portal ? 'New portal link' : 'Portal link'} />
  </section>`;
}
