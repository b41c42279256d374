import { expect } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import type { TestApi } from './api.ts';
import { upsertMandate } from '../../db/mandate/mandates.ts';
import { makeApiKey, makeTenant, unique } from './fixtures.ts';
import { gatewayMandate } from './mandates.ts';
import type { Watched } from './unchanged.ts';

export type Tenant = Awaited<ReturnType<typeof makeTenant>>;

/** A record a path parameter names: the value to put in the path, and the rows that are the record. */
export interface Named {
  value: string;
  watched: Watched[];
}

/**
 * One record of every kind an API path names, all of organization `t`, keyed by "<segment>/{param}"
 * (the path segment before the parameter, and the parameter's name): what a path like
 * /api/v1/products/{id} or /api/v1/subscriptions/{id}/invoices/{invoice_id} points at.
 */
export async function recordsOf(api: TestApi, t: Tenant): Promise<Map<string, Named>> {
  const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
    api.orm.em.getConnection().execute(query, params);
  const created = async (path: string, body: Record<string, unknown>) => {
    const res = await api.call('POST', path, { token: t.oat, body });
    expect({ path, status: res.status }).toEqual({ path, status: 201 });
    return res.body as Record<string, any>;
  };
  const row = (table: string, id: string): Watched => [`select * from ${table} where id = ?`, [id]];
  const one = (table: string, id: string): Named => ({ value: id, watched: [row(table, id)] });

  const product = await created('/api/v1/products/', {
    organization_id: t.org.id,
    name: unique('product'),
    prices: [{ currency: 'brl', unit_amount: 4990, type: 'recurring', interval: 'month' }],
  });
  const priceId: string = product.prices[0].id;
  const customer = await created('/api/v1/customers/', {
    email: `${unique('buyer')}@example.com`,
    external_id: unique('ext'),
  });
  const discount = await created('/api/v1/discounts/', {
    name: unique('discount'),
    type: 'percentage',
    basis_points: 1,
  });
  const link = await created('/api/v1/checkout-links/', { product_ids: [product.id] });
  const [event] = await sql(`select id from events where organization_id = ? order by seq desc limit 1`, [t.org.id]);
  const ids = { checkout: uuidv7(), transaction: uuidv7(), sale: uuidv7(), refund: uuidv7(), subscription: uuidv7() };
  await sql(
    `insert into checkouts (id, organization_id, status, client_secret, workflow_id, product_id, product_price_id,
       currency, subtotal_amount, amount, customer_id, expires_at, created_at, updated_at)
     values (?, ?, 'succeeded', ?, ?, ?, ?, 'BRL', 4990, 4990, ?, now(), now(), now())`,
    [ids.checkout, t.org.id, unique('cs'), `checkout:${ids.checkout}`, product.id, priceId, customer.id],
  );
  await sql(
    `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, checkout_id, status,
       recurrence_billing, amount, subtotal_amount, currency, current_period_start, current_period_end, created_at,
       workflow_id, billing_anchor)
     values (?, ?, ?, ?, ?, ?, 'active', 'manual', 4990, 4990, 'brl', now(), now() + interval '1 month', now(), ?, now())`,
    [ids.subscription, t.org.id, customer.id, product.id, priceId, ids.checkout, `subscription:${ids.subscription}`],
  );
  await sql(
    `insert into transactions (id, organization_id, checkout_id, gateway_transaction_id, status, payment_type, amount,
       currency, captured_amount, refunded_amount, created_at, updated_at)
     values (?, ?, ?, ?, 'succeeded', 'credit', 4990, 'BRL', 4990, 1000, now(), now())`,
    [ids.transaction, t.org.id, ids.checkout, unique('tx')],
  );
  await sql(
    `insert into sales (id, organization_id, checkout_id, transaction_id, customer_id, product_id, price_id,
       subscription_id, currency, subtotal_amount, amount, payment_method, status, refunded_amount, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'BRL', 4990, 4990, 'credit_card', 'partially_refunded', 1000, now(), now())`,
    [ids.sale, t.org.id, ids.checkout, ids.transaction, customer.id, product.id, priceId, ids.subscription],
  );
  await sql(
    `insert into refunds (id, organization_id, sale_id, transaction_id, amount, status, created_at, updated_at)
     values (?, ?, ?, ?, 1000, 'succeeded', now(), now())`,
    [ids.refund, t.org.id, ids.sale, ids.transaction],
  );
  const more = await invoiceFileAndWebhook(sql, t.org.id, ids.subscription, event.id);
  const reconciliation = uuidv7();
  await sql(
    `insert into reconciliations (id, organization_id, day, status, ours_total, theirs_total, unmatched_total,
       matched_count, unmatched_count, report_key, created_at)
     values (?, ?, current_date, 'balanced', 4990, 4990, 0, 1, 0, ?, now())`,
    [reconciliation, t.org.id, unique('report')],
  );
  const mandate = await api.orm.em.fork().transactional((tx) =>
    upsertMandate(
      tx,
      {
        organizationId: t.org.id,
        subscriptionId: ids.subscription,
        customerId: customer.id,
        currency: 'brl',
        gateway: gatewayMandate(ids.subscription),
      },
      new Date(),
    ),
  );
  const key = await makeApiKey(api.orm, t.org.id);
  const [token] = await sql('select id from organization_access_tokens where organization_id = ? limit 1', [t.org.id]);

  const organization: Named = {
    value: t.org.id,
    watched: [
      row('organizations', t.org.id),
      membersOf(t.org.id),
      ['select id from api_keys where organization_id = ? order by id', [t.org.id]],
      ['select id from organization_access_tokens where organization_id = ? order by id', [t.org.id]],
    ],
  };
  return new Map<string, Named>([
    ['organizations/{id}', organization],
    ['organizations/{organization_id}', organization],
    ['members/{email}', { value: t.ownerEmail, watched: [membersOf(t.org.id)] }],
    ['api-keys/{id}', { value: key.id, watched: [credentialRow('api_keys', key.id)] }],
    ['access-tokens/{id}', { value: token.id, watched: [credentialRow('organization_access_tokens', token.id)] }],
    ['products/{id}', { value: product.id, watched: [row('products', product.id), pricesOf(product.id)] }],
    ['customers/{id}', one('customers', customer.id)],
    ['external/{external_id}', { value: customer.external_id, watched: [row('customers', customer.id)] }],
    ['discounts/{id}', one('discounts', discount.id)],
    ['checkout-links/{id}', one('checkout_links', link.id)],
    ['events/{id}', one('events', event.id)],
    ['files/{id}', one('files', more.file)],
    ['webhooks/{id}', { value: more.endpoint, watched: [row('webhook_endpoints', more.endpoint), more.deliveries] }],
    ['webhook-deliveries/{id}', { value: more.delivery, watched: [row('webhook_deliveries', more.delivery)] }],
    [
      'checkouts/{id}',
      { value: ids.checkout, watched: [row('checkouts', ids.checkout), renewalsOf(ids.subscription)] },
    ],
    ['sales/{id}', one('sales', ids.sale)],
    ['refunds/{id}', one('refunds', ids.refund)],
    ['subscriptions/{id}', { value: ids.subscription, watched: [row('subscriptions', ids.subscription)] }],
    ['invoices/{invoice_id}', one('subscription_invoices', more.invoice)],
    ['reconciliations/{id}', one('reconciliations', reconciliation)],
    ['mandates/{id}', one('mandates', mandate.row.id)],
  ]);
}

const membersOf = (orgId: string): Watched => [
  'select * from organization_members where organization_id = ? order by user_id',
  [orgId],
];
const pricesOf = (productId: string): Watched => ['select * from prices where product_id = ? order by id', [productId]];
const renewalsOf = (subscriptionId: string): Watched => [
  'select id from checkouts where subscription_id = ? order by id',
  [subscriptionId],
];
/** A credential's row, but when it was last used (its own use is recorded a moment after a request). */
const credentialRow = (table: string, id: string): Watched => [
  `select id, organization_id, scopes, expires_at, revoked_at from ${table} where id = ?`,
  [id],
];

/** A subscription invoice, an uploaded file's record, and a webhook endpoint with a delivery of `eventId`. */
async function invoiceFileAndWebhook(
  sql: (query: string, params?: unknown[]) => Promise<any[]>,
  orgId: string,
  subscriptionId: string,
  eventId: string,
) {
  const [invoice, file, endpoint, delivery] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await sql(
    `insert into subscription_invoices (id, organization_id, subscription_id, number, gateway_invoice_id, amount,
       currency, due_date, status, no_fees_installments, workflow_id, created_at, modified_at)
     values (?, ?, ?, ?, ?, 4990, 'BRL', current_date + 7, 'pending', false, ?, now(), now())`,
    [invoice, orgId, subscriptionId, unique('INV'), unique('inv'), `invoice:${invoice}`],
  );
  await sql(
    `insert into files (id, organization_id, name, mime_type, purpose, size, checksum_sha256, storage_key, created_at)
     values (?, ?, 'logo.png', 'image/png', 'product_media', 3, ?, ?, now())`,
    [file, orgId, 'a'.repeat(64), `files/${file}`],
  );
  await sql(
    `insert into webhook_endpoints (id, organization_id, url, secret, created_at, updated_at)
     values (?, ?, 'https://example.com/hook', ?, now(), now())`,
    [endpoint, orgId, unique('whsec')],
  );
  await sql(
    `insert into webhook_deliveries (id, organization_id, event_id, endpoint_id, status, created_at, updated_at)
     values (?, ?, ?, ?, 'failed', now(), now())`,
    [delivery, orgId, eventId, endpoint],
  );
  const deliveries: Watched = ['select * from webhook_deliveries where endpoint_id = ? order by id', [endpoint]];
  return { invoice, file, endpoint, delivery, deliveries };
}
