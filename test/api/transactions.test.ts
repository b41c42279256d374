import { cardPaymentsOf } from '../../gateway/capabilities.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { directTransactionWorkflowId } from '../../contracts/direct-transaction.ts';
import { sellerIdOf } from '../../api/seller-ids.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ LOG_LEVEL: process.env.API_LOG_LEVEL ?? 'silent' });
});
afterAll(async () => {
  await api.close();
});

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);
const card = (number = '4111111111111111') => ({
  card_number: number,
  holder_name: 'ANA SOUZA',
  expiration_month: '12',
  expiration_year: '2031',
  security_code: '123',
});
const direct = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api.call('POST', '/api/v1/transactions/direct', { body, headers });

async function checkoutFor(
  t: Tenant,
  price: Record<string, unknown>,
  buyer: Record<string, unknown> = { customer_email: 'ana@example.com', customer_name: 'Ana Souza' },
) {
  const product = await api.call('POST', '/api/v1/products/', {
    token: t.oat,
    body: { organization_id: t.org.id, name: 'Plan', prices: [{ currency: 'brl', ...price }] },
  });
  expect(product.status).toBe(201);
  const checkout = await api.call('POST', '/api/v1/checkouts/', {
    token: t.oat,
    body: { product_id: product.body.id, ...buyer },
  });
  expect(checkout.status).toBe(201);
  const config = await api.call('GET', `/api/v1/checkouts/client/${checkout.body.client_secret}/seller-config`);
  expect(config.status).toBe(200);
  return { checkout: checkout.body, sellerId: config.body.seller_id as string };
}

describe('POST /api/v1/transactions/direct', () => {
  it('charges a card without a checkout and records the transaction (never the card)', async () => {
    const t = await makeTenant(api.orm);
    const res = await direct({
      seller_id: sellerIdOf(t.org.id),
      amount: 5000,
      card: card(),
      customer_email: 'a@example.com',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      transaction_id: expect.any(String),
      status: 'succeeded',
      authorization_code: expect.any(String),
      amount: 5000,
      installments: 1,
      payment_method: { type: 'credit', brand: 'visa', last4: '1111' },
    });
    const rows = await sql(
      'select organization_id, amount, card::text as card from transactions where gateway_transaction_id = ?',
      [res.body.transaction_id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].organization_id).toBe(t.org.id);
    expect(rows[0].card).not.toContain('4111111111111111');
  });

  it('adds Price-table interest for installments, exact to the cent', async () => {
    const t = await makeTenant(api.orm);
    const res = await direct({ seller_id: sellerIdOf(t.org.id), amount: 10_000, installments: 3, card: card() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: 10_605, installments: 3, status: 'succeeded' });
  });

  it('answers a declined card with status failed and the decline reason', async () => {
    const t = await makeTenant(api.orm);
    const res = await direct({ seller_id: sellerIdOf(t.org.id), amount: 5000, card: card('4000000000009995') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'failed',
      decline_reason: 'insufficient_funds',
      authorization_code: null,
    });
  });

  it('charges once for a repeated Idempotency-Key, and answers the same', async () => {
    const t = await makeTenant(api.orm);
    const key = uuidv7();
    const body = { seller_id: sellerIdOf(t.org.id), amount: 2500, card: card() };
    const first = await direct(body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const second = await direct(body, { 'idempotency-key': key });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    // As after a 5xx or once the key's record expired: the request reaches the route again, and
    // joins the workflow of the first (finished) run rather than charging anew.
    await sql(`delete from idempotency_keys where key = ?`, [key]);
    const third = await direct(body, { 'idempotency-key': key });
    expect(third.status).toBe(201);
    expect(third.headers['idempotent-replayed']).toBeUndefined();
    expect(third.body).toEqual(first.body);
    const [ledger] = await sql(
      `select count(*)::int as n from gateway_sim.ledger where transaction_id = ? and kind = 'capture'`,
      [first.body.transaction_id],
    );
    expect(ledger.n).toBe(1);
    const charges = await sql(
      `select count(*)::int as n from gateway_sim.attempts where key = ? and operation = 'charge_card'`,
      [`direct:${t.org.id}:${key}`],
    );
    expect(charges[0].n).toBe(1);
    expect(await sql('select id from transactions where organization_id = ?', [t.org.id])).toHaveLength(1);
  });

  it('keeps the card out of the workflow history: the workflow gets a token', async () => {
    const t = await makeTenant(api.orm);
    const key = uuidv7();
    const pan = '5555555555554444';
    const res = await direct(
      { seller_id: sellerIdOf(t.org.id), amount: 3100, card: { ...card(pan), security_code: '987' } },
      { 'idempotency-key': key },
    );
    expect(res.status).toBe(201);
    const temporal = createTemporalClient(api.config);
    try {
      const handle = temporal.workflow.getHandle(directTransactionWorkflowId(t.org.id, key));
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      const history = JSON.stringify(await handle.fetchHistory());
      // The search is over the payloads as stored (base64 JSON): decode them before looking.
      const decoded = history.replace(/"data":"([A-Za-z0-9+/=]+)"/g, (_m, b64: string) =>
        Buffer.from(b64, 'base64').toString('utf8'),
      );
      expect(decoded).toContain(res.body.transaction_id);
      expect(decoded).toContain('"cardToken":"card_');
      expect(decoded).not.toContain(pan);
      expect(decoded).not.toMatch(/cvv|security_code|card_number/);
    } finally {
      await temporal.connection.close();
    }
  });

  it('retries a processing error with the same key, and charges once', async () => {
    const t = await makeTenant(api.orm);
    const key = uuidv7();
    const res = await direct(
      { seller_id: sellerIdOf(t.org.id), amount: 1800, card: card('4000000000000119') },
      { 'idempotency-key': key },
    );
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('succeeded');
    const attempts = await sql(
      `select outcome from gateway_sim.attempts where key = ? and operation = 'charge_card' order by id`,
      [`direct:${t.org.id}:${key}`],
    );
    expect(attempts.map((a) => a.outcome)).toEqual([expect.stringMatching(/^error: Processing error/), 'ran']);
    expect(await sql('select id from transactions where organization_id = ?', [t.org.id])).toHaveLength(1);
  });

  it('answers 503 when the gateway never took the charge, and a retry with the same key charges', async () => {
    const t = await makeTenant(api.orm);
    const key = uuidv7();
    const reference = `direct:${t.org.id}:${key}`;
    // The gateway's books refuse this charge for now: every try fails like an outage, and nothing is charged.
    await sql(`create or replace function gateway_sim.refuse_direct() returns trigger language plpgsql as $$
      begin
        if new.reference = '${reference}' then raise exception 'gateway down'; end if;
        return new;
      end $$`);
    await sql(
      `create trigger refuse_direct before insert on gateway_sim.transactions for each row execute function gateway_sim.refuse_direct()`,
    );
    const body = { seller_id: sellerIdOf(t.org.id), amount: 2700, card: card() };
    let down;
    try {
      down = await direct(body, { 'idempotency-key': key });
    } finally {
      await sql('drop trigger refuse_direct on gateway_sim.transactions');
    }
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: 'gateway_unavailable', detail: 'Retry with the same Idempotency-Key' });
    expect(await sql('select id from transactions where organization_id = ?', [t.org.id])).toEqual([]);

    const retried = await direct(body, { 'idempotency-key': key });
    expect(retried.status).toBe(201);
    expect(retried.body.status).toBe('succeeded');
    const rows = await sql('select gateway_transaction_id from transactions where organization_id = ?', [t.org.id]);
    expect(rows).toEqual([{ gateway_transaction_id: retried.body.transaction_id }]);
  }, 60_000);

  it('issues a pix', async () => {
    const t = await makeTenant(api.orm);
    const res = await direct({
      seller_id: sellerIdOf(t.org.id),
      amount: 1990,
      payment_type: 'pix',
      customer_email: 'p@example.com',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'pending',
      amount: 1990,
      payment_method: { type: 'pix', brand: null, last4: null },
    });
    expect(res.body.pix.qr_code).toContain('540519.90');
  });

  it.each([
    ['installments above 12', { installments: 13, card: card() }],
    ['a credit payment without a card', {}],
    ['pix in installments', { payment_type: 'pix', installments: 2 }],
    ['a card with pix', { payment_type: 'pix', card: card() }],
    ['a tax id with punctuation', { customer_tax_id: '529.982.247-25', card: card() }],
  ])('refuses %s with 400', async (_name, extra) => {
    const t = await makeTenant(api.orm);
    const res = await direct({ seller_id: sellerIdOf(t.org.id), amount: 1000, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error).toBeTruthy();
  });

  it('refuses an unknown seller', async () => {
    const res = await direct({ seller_id: 'sim_seller_00000000000000000000000000000000', amount: 1000, card: card() });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('unknown_seller');
  });

  it('accepts only 1 installment for a monthly recurring subscription', async () => {
    const t = await makeTenant(api.orm);
    const { checkout, sellerId } = await checkoutFor(t, { unit_amount: 3990, type: 'recurring', interval: 'month' });
    const res = await direct({
      seller_id: sellerId,
      amount: 3990,
      checkout_id: checkout.id,
      installments: 2,
      card: card(),
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('This price accepts at most 1 installment');
    const ok = await direct({
      seller_id: sellerId,
      amount: 3990,
      checkout_id: checkout.id,
      installments: 1,
      card: card(),
    });
    expect(ok.status).toBe(201);
    expect(ok.body.status).toBe('succeeded');
    const [sub] = await sql('select status from subscriptions where checkout_id = ?', [checkout.id]);
    expect(sub.status).toBe('active');
  });

  it('answers 422 customer_email_required for a checkout without a customer, as confirm-sdk does', async () => {
    const t = await makeTenant(api.orm);
    const { checkout, sellerId } = await checkoutFor(t, { unit_amount: 1500 }, {});
    const res = await direct({ seller_id: sellerId, amount: 1500, checkout_id: checkout.id, payment_type: 'pix' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'customer_email is required', code: 'customer_email_required' });
    const [row] = await sql('select status from checkouts where id = ?', [checkout.id]);
    expect(row).toEqual({ status: 'open' });
  });

  it('pays a checkout through its workflow, once', async () => {
    const t = await makeTenant(api.orm);
    const { checkout, sellerId } = await checkoutFor(t, { unit_amount: 15_000 });
    const wrong = await direct({ seller_id: sellerId, amount: 14_999, checkout_id: checkout.id, card: card() });
    expect(wrong.status).toBe(400);
    const paid = await direct({
      seller_id: sellerId,
      amount: 15_000,
      checkout_id: checkout.id,
      installments: 2,
      card: card(),
    });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({
      status: 'succeeded',
      installments: 2,
      payment_method: { brand: 'visa', last4: '1111' },
    });
    const [row] = await sql('select status from checkouts where id = ?', [checkout.id]);
    expect(row.status).toBe('succeeded');
    expect(await sql('select id from sales where checkout_id = ?', [checkout.id])).toHaveLength(1);
    const again = await direct({ seller_id: sellerId, amount: 15_000, checkout_id: checkout.id, card: card() });
    expect(again.status).toBe(409);
    const other = await makeTenant(api.orm);
    const foreign = await direct({
      seller_id: sellerIdOf(other.org.id),
      amount: 15_000,
      checkout_id: checkout.id,
      card: card(),
    });
    expect(foreign.status).toBe(404);
  });
});

describe('GET /api/v1/transactions/:transaction_id', () => {
  it('reads a transaction we recorded, with its checkout, product, card and buyer, masked but for its organization', async () => {
    const t = await makeTenant(api.orm);
    const { checkout, sellerId } = await checkoutFor(t, { unit_amount: 7000 });
    const paid = await direct({ seller_id: sellerId, amount: 7000, checkout_id: checkout.id, card: card() });
    const res = await api.call('GET', `/api/v1/transactions/${paid.body.transaction_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      transaction_id: paid.body.transaction_id,
      status: 'succeeded',
      amount: 7000,
      currency: 'BRL',
      payment_type: 'credit',
      installments: 1,
      card: { brand: 'visa', last4: '1111', first4: '4111', holder_name: 'A*** S***', expiration_month: '12' },
      transaction_number: expect.stringMatching(/^\d+$/),
      authorization_code: expect.any(String),
      checkout: {
        id: checkout.id,
        status: 'succeeded',
        amount: 7000,
        currency: 'BRL',
        customer_email: 'a***@example.com',
        product: { name: 'Plan' },
      },
      buyer: { first_name: 'A***', last_name: 'S***' },
    });
    expect(res.body).not.toHaveProperty('synced_from_gateway');
    // Its organization's credential sees the personal fields; another organization's does not.
    const own = await api.call('GET', `/api/v1/transactions/${paid.body.transaction_id}`, { token: t.oat });
    expect(own.body).toMatchObject({
      card: { holder_name: 'ANA SOUZA' },
      checkout: { customer_email: 'ana@example.com' },
      buyer: { first_name: 'Ana', last_name: 'Souza' },
    });
    const other = await makeTenant(api.orm);
    const foreign = await api.call('GET', `/api/v1/transactions/${paid.body.transaction_id}`, { token: other.oat });
    expect(foreign.status).toBe(200);
    expect(foreign.body.checkout.customer_email).toBe('a***@example.com');
  });

  it('reads from the gateway what we have no record of, and says so', async () => {
    const charge = await cardPaymentsOf(api.gateway).chargeCard(
      {
        reference: uuidv7(),
        amount: 1234,
        currency: 'BRL',
        installments: 1,
        noFeesInstallments: false,
        card: {
          number: '5555555555554444',
          holderName: 'BIA',
          expirationMonth: '01',
          expirationYear: '2030',
          cvv: '321',
        },
        capture: true,
      },
      `test:${uuidv7()}`,
    );
    const res = await api.call('GET', `/api/v1/transactions/${charge.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: null,
      transaction_id: charge.id,
      status: 'succeeded',
      amount: 1234,
      card: { brand: 'mastercard', last4: '4444', holder_name: 'B***' },
      synced_from_gateway: true,
    });
  });

  it('answers 404 for a transaction nobody knows', async () => {
    const res = await api.call('GET', '/api/v1/transactions/tx_does_not_exist');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});
