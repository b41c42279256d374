import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { brazilToday } from '../../domain/invoices.ts';
import { SUBSCRIPTION_ID } from '../../domain/search-attributes.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { paidSubscription as paidSubscriptionOf } from '../helpers/subscriptions.ts';
import { makeApiKey, makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * POST/GET /api/v1/subscriptions/<id>/invoices over HTTPS against the real worker: a card checkout of
 * a gateway-billed monthly price gives a subscription with a gateway_subscription_id; its extra charges
 * are created at the gateway, numbered, and paid or failed through the sandbox, whose callbacks reach
 * the invoice's workflow. (A manually billed subscription's: subscription-manual-invoices.test.ts.)
 */
let api: TestApi;
let temporal: Client;
let sim: SimulatedGateway;
beforeAll(async () => {
  api = await startApi();
  temporal = createTemporalClient(api.config);
  sim = api.gateway as SimulatedGateway;
  // The API listens on a port of its own: the sandbox's callbacks go there.
  sim.callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
});
afterAll(async () => {
  await sim.settleCallbacks();
  await temporal.connection.close();
  await api.close();
});

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);
const today = () => brazilToday(new Date());
const daysFromToday = (days: number) => brazilToday(new Date(Date.now() + days * 86_400_000));

/** A paid monthly subscription of a new organization, billed by `billing`, with an OAT of that organization. */
async function paidSubscription(billing: 'gateway' | 'manual' = 'gateway', cardNumber?: string) {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscriptionOf(api, temporal, {
    organizationId: org.id,
    recurrenceBilling: billing,
    cardNumber,
  });
  return {
    id: row.id as string,
    gatewaySubscriptionId: row.gateway_subscription_id as string | null,
    organizationId: org.id,
    prefix: org.slug.toUpperCase(),
    oat: await makeOat(api.orm, org.id),
  };
}
type Sub = Awaited<ReturnType<typeof paidSubscription>>;

const invoiceBody = (overrides: Record<string, unknown> = {}) => ({
  amount: 12_345,
  due_date: today(),
  description: 'Installation',
  expiration_date: daysFromToday(5),
  ...overrides,
});
const post = (s: Sub, body: unknown, token: string = s.oat) =>
  api.call('POST', `/api/v1/subscriptions/${s.id}/invoices`, { body, token });
const invoices = (s: Sub) =>
  sql('select number, status from subscription_invoices where subscription_id = ? order by number', [s.id]);
const nextNumber = async (s: Sub) =>
  (await sql('select customer_invoice_next_number as n from organizations where id = ?', [s.organizationId]))[0]!.n;

/** Reads the invoice until it has `status` (its workflow settles it after the gateway's callback). */
async function waitForStatus(s: Sub, invoiceId: string, status: string) {
  let last: any;
  return waitFor(
    async () => {
      last = (await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices/${invoiceId}`, { token: s.oat })).body;
      return last.status === status && last;
    },
    { what: `invoice ${invoiceId} to be ${status}`, timeoutMs: 10_000, intervalMs: 100, describe: () => last?.status },
  );
}

describe('POST /api/v1/subscriptions/<id>/invoices', () => {
  it('answers 201 with the invoice the gateway created, numbered and pending, readable by id and in the list', async () => {
    const s = await paidSubscription();
    expect(s.gatewaySubscriptionId).toMatch(/^sub_/);
    const res = await post(s, invoiceBody());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      number: `${s.prefix}-1`,
      gateway_invoice_id: expect.stringMatching(/^inv_/),
      subscription_id: s.id,
      organization_id: s.organizationId,
      amount: 12_345,
      currency: 'BRL',
      description: 'Installation',
      due_date: today(),
      expiration_date: daysFromToday(5),
      payment_method: 'credit',
      status: 'pending',
      no_fees_installments: false,
      failure_reason: null,
      transaction_id: null,
      paid_at: null,
      created_at: expect.any(String),
      modified_at: expect.any(String),
      workflow_id: `invoice:${res.body.id}`,
      workflow_url: expect.stringContaining(encodeURIComponent(`invoice:${res.body.id}`)),
    });
    // Created at the gateway, on the subscription's own gateway subscription.
    expect(await sim.getInvoice(res.body.gateway_invoice_id)).toMatchObject({
      subscriptionId: s.gatewaySubscriptionId,
      amount: 12_345,
      status: 'pending',
    });
    const one = await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices/${res.body.id}`, { token: s.oat });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
    const list = await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices`, { token: s.oat });
    expect(list.body).toEqual({ items: [res.body], pagination: { total_count: 1, max_page: 1 } });
    const description = await temporal.workflow.getHandle(res.body.workflow_id).describe();
    expect(description.typedSearchAttributes.get(SUBSCRIPTION_ID)).toBe(s.id);
    const events = await sql("select data from events where organization_id = ? and type = 'invoice.created'", [
      s.organizationId,
    ]);
    expect(events.map((e) => e.data)).toEqual([withoutUrl(res.body)]);
  });

  it('without an expiration_date, expires 30 days after its due date (the documented default)', async () => {
    const s = await paidSubscription();
    const res = await post(s, invoiceBody({ due_date: daysFromToday(2), expiration_date: undefined }));
    expect(res.status).toBe(201);
    expect(res.body.expiration_date).toBe(daysFromToday(32));
    const one = await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices/${res.body.id}`, { token: s.oat });
    expect(one.body.expiration_date).toBe(daysFromToday(32));
  });

  it('is paid when the gateway charges it (sandbox), through the callback: a transaction and a sale', async () => {
    const s = await paidSubscription();
    const created = await post(s, invoiceBody({ no_fees_installments: true }));
    expect(created.status).toBe(201);
    const charged = await api.call('POST', `/api/v1/sandbox/invoices/${created.body.gateway_invoice_id}/pay`);
    expect(charged.status).toBe(200);
    const paid = await waitForStatus(s, created.body.id, 'paid');
    expect(paid).toMatchObject({
      paid_at: expect.any(String),
      transaction_id: expect.any(String),
      failure_reason: null,
    });
    const sales = await api.call('GET', `/api/v1/sales?subscription_id=${s.id}`, { token: s.oat });
    expect(sales.body.items.map((sale: { amount: number }) => sale.amount)).toEqual(
      expect.arrayContaining([4_990, 12_345]),
    );
    const types = await sql<{ type: string }>(
      "select type from events where organization_id = ? and type like 'invoice.%' order by created_at, id",
      [s.organizationId],
    );
    expect(types.map((e) => e.type)).toEqual(['invoice.created', 'invoice.paid']);
  });

  it('on a card that only authorizes, is paid: its transaction captured in full and its sale paid', async () => {
    // The checkout captured the card's first charge; the invoice the gateway charges to its own
    // subscription's card, so this guards the whole path rather than a capture of ours.
    const s = await paidSubscription('gateway', '4000000000003220');
    const created = await post(s, invoiceBody());
    expect(created.status).toBe(201);
    const charged = await api.call('POST', `/api/v1/sandbox/invoices/${created.body.gateway_invoice_id}/pay`);
    expect(charged.status).toBe(200);
    const paid = await waitForStatus(s, created.body.id, 'paid');
    expect(paid).toMatchObject({ transaction_id: expect.any(String), failure_reason: null });
    const [payment] = await sql('select status, captured_amount::int as captured from transactions where id = ?', [
      paid.transaction_id,
    ]);
    expect(payment).toEqual({ status: 'succeeded', captured: 12_345 });
    const sales = await api.call('GET', `/api/v1/sales?subscription_id=${s.id}`, { token: s.oat });
    expect(sales.body.items.map((sale: { amount: number; status: string }) => [sale.amount, sale.status])).toEqual(
      expect.arrayContaining([
        [4_990, 'paid'],
        [12_345, 'paid'],
      ]),
    );
  });

  it('fails when the gateway refuses the charge (sandbox), with the reason', async () => {
    const s = await paidSubscription();
    const created = await post(s, invoiceBody());
    const refused = await api.call('POST', `/api/v1/sandbox/invoices/${created.body.gateway_invoice_id}/fail`);
    expect(refused.status).toBe(200);
    expect(await waitForStatus(s, created.body.id, 'failed')).toMatchObject({ failure_reason: 'card_declined' });
  });

  it('numbers concurrent invoices of an organization without a gap or a duplicate', async () => {
    const s = await paidSubscription();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(s, invoiceBody({ amount: 100 + i }))));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    const numbers = answers
      .map((a) => a.body.number as string)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(numbers).toEqual(Array.from({ length: 8 }, (_, i) => `${s.prefix}-${i + 1}`));
    expect(await nextNumber(s)).toBe(9);
  });

  it('refuses a subscription that has ended (409), writing nothing', async () => {
    // A manually billed one is charged by the engine (subscription-manual-invoices.test.ts).
    const s = await paidSubscription();
    const revoked = await api.call('PATCH', `/api/v1/subscriptions/${s.id}`, { body: { revoke: true }, token: s.oat });
    expect(revoked.body.status).toBe('canceled');
    const ended = await post(s, invoiceBody());
    expect(ended.status).toBe(409);
    expect(ended.body).toEqual({
      error: 'The subscription cannot be invoiced',
      code: 'subscription_not_invoiceable',
      detail: expect.stringContaining('canceled'),
    });
    expect(await invoices(s)).toEqual([]);
    expect(await nextNumber(s)).toBe(1);
  });

  it('is voided when its subscription is revoked: it can no longer be paid, and the event says so', async () => {
    const s = await paidSubscription();
    const created = await post(s, invoiceBody({ expiration_date: daysFromToday(20) }));
    expect(created.status).toBe(201);
    const revoked = await api.call('PATCH', `/api/v1/subscriptions/${s.id}`, { body: { revoke: true }, token: s.oat });
    expect(revoked.status).toBe(200);
    // Voided long before its deadline (20 days away): by the subscription's end.
    const voided = await waitForStatus(s, created.body.id, 'voided');
    expect(voided).toMatchObject({ paid_at: null, transaction_id: null });
    const [atGateway] = await sql('select status from gateway_sim.invoices where id = ?', [
      created.body.gateway_invoice_id,
    ]);
    expect(atGateway).toEqual({ status: 'voided' });
    const late = await api.call('POST', `/api/v1/sandbox/invoices/${created.body.gateway_invoice_id}/pay`);
    expect(late.status).toBe(409);
    const types = await sql<{ type: string }>(
      "select type from events where organization_id = ? and type like 'invoice.%' order by created_at, id",
      [s.organizationId],
    );
    expect(types.map((e) => e.type)).toEqual(['invoice.created', 'invoice.voided']);
  });

  it('refuses dates the calendar does not allow (422) and a body the document refuses (400), writing nothing', async () => {
    const s = await paidSubscription();
    const past = await post(s, invoiceBody({ due_date: daysFromToday(-1), expiration_date: null }));
    expect(past.status).toBe(422);
    expect(past.body).toMatchObject({ code: 'invalid_due_date', error: 'Invalid invoice dates' });
    const early = await post(s, invoiceBody({ due_date: daysFromToday(3), expiration_date: daysFromToday(2) }));
    expect(early.status).toBe(422);
    expect(early.body.code).toBe('invalid_expiration_date');
    for (const body of [
      invoiceBody({ amount: 0 }),
      invoiceBody({ amount: -5 }),
      invoiceBody({ amount: 10.5 }),
      invoiceBody({ amount: '100' }),
      invoiceBody({ due_date: '2031-02-30' }),
      invoiceBody({ due_date: '01/02/2031' }),
      invoiceBody({ expiration_date: '2031-13-01' }),
      invoiceBody({ description: '   ' }),
      invoiceBody({ no_fees_installments: 'yes' }),
      invoiceBody({ currency: 'BRL' }),
      { amount: 100 },
    ]) {
      const res = await post(s, body);
      expect([res.status, res.body.code]).toEqual([400, 'validation_error']);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'detail', 'error']);
    }
    expect(await invoices(s)).toEqual([]);
    expect(await nextNumber(s)).toBe(1);
  });

  it('keeps nothing when the gateway refuses to create the invoice (422 gateway_refused)', async () => {
    const s = await paidSubscription();
    // Canceled at the gateway behind our back: our subscription still looks invoiceable.
    await sim.cancelSubscription(s.gatewaySubscriptionId!, `test:cancel:${s.id}`);
    const res = await post(s, invoiceBody());
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'gateway_refused', detail: expect.stringContaining('canceled') });
    expect(await invoices(s)).toEqual([]);
    expect(await nextNumber(s)).toBe(1);
  });
});

describe('who may charge and read invoices', () => {
  it("takes web:write or subscriptions:write, and API keys with write; another organization's token gets 404", async () => {
    const s = await paidSubscription();
    expect((await api.call('POST', `/api/v1/subscriptions/${s.id}/invoices`, { body: invoiceBody() })).status).toBe(
      401,
    );
    const readOnly = await makeOat(api.orm, s.organizationId, ['subscriptions:read']);
    expect((await post(s, invoiceBody(), readOnly)).status).toBe(403);
    expect((await post(s, invoiceBody(), await makeOat(api.orm, s.organizationId, ['customers:write']))).status).toBe(
      403,
    );
    expect(
      (await post(s, invoiceBody(), await makeOat(api.orm, s.organizationId, ['subscriptions:write']))).status,
    ).toBe(201);
    const readKey = (await makeApiKey(api.orm, s.organizationId, { scopes: ['read'] })).key;
    const writeKey = (await makeApiKey(api.orm, s.organizationId, { scopes: ['write'] })).key;
    const withKey = (key: string) =>
      api.call('POST', `/api/v1/subscriptions/${s.id}/invoices`, {
        body: invoiceBody(),
        headers: { 'x-service-api-key': key },
      });
    const refused = await withKey(readKey);
    expect([refused.status, refused.body.error]).toEqual([403, 'Api key lacks required scope']);
    expect((await withKey(writeKey)).status).toBe(201);
    const listed = await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices`, {
      headers: { 'x-service-api-key': readKey },
    });
    expect(listed.body.pagination.total_count).toBe(2);
    expect((await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices`, { token: readOnly })).status).toBe(200);

    const stranger = await makeOat(api.orm, (await makeOrganization(api.orm)).id);
    expect((await post(s, invoiceBody(), stranger)).status).toBe(404);
    expect((await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices`, { token: stranger })).status).toBe(404);
    const id = listed.body.items[0].id;
    expect((await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices/${id}`, { token: stranger })).status).toBe(
      404,
    );
  });
});

describe('GET /api/v1/subscriptions/<id>/invoices', () => {
  it('pages, sorts and filters; an unknown subscription or invoice is 404', async () => {
    const s = await paidSubscription();
    for (const amount of [300, 100, 200]) expect((await post(s, invoiceBody({ amount }))).status).toBe(201);
    const page = await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices?limit=2&sorting=amount`, {
      token: s.oat,
    });
    expect(page.body.items.map((i: { amount: number }) => i.amount)).toEqual([100, 200]);
    expect(page.body.pagination).toEqual({ total_count: 3, max_page: 2 });
    const newest = await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices`, { token: s.oat });
    expect(newest.body.items.map((i: { amount: number }) => i.amount)).toEqual([200, 100, 300]);
    const paid = await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices?status=paid`, { token: s.oat });
    expect(paid.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 1 } });
    expect(
      (await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices?sorting=number`, { token: s.oat })).status,
    ).toBe(400);
    const unknown = '01900000-0000-7000-8000-000000000000';
    expect((await api.call('GET', `/api/v1/subscriptions/${unknown}/invoices`, { token: s.oat })).status).toBe(404);
    expect((await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices/${unknown}`, { token: s.oat })).status).toBe(
      404,
    );
    expect((await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices/nope`, { token: s.oat })).status).toBe(404);
  });
});

function withoutUrl(record: Record<string, unknown>) {
  const { workflow_url: _, ...rest } = record;
  return rest;
}
