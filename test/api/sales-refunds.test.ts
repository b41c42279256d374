import { cardPaymentsOf } from '../../gateway/capabilities.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { restartStrandedRefunds } from '../../api/routes/refunds.ts';
import { freePort } from '../../scripts/processes.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeTenant, unique } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

/**
 * A paid sale as a checkout leaves it: a real capture at the simulated gateway, our transaction
 * record, the customer and the sale. (The checkout flow itself has its own tests.)
 */
async function paidSale(tenant: Tenant, amount = 10_000, installments = 1) {
  const productId = uuidv7();
  const priceId = uuidv7();
  const customerId = uuidv7();
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Course', now())`, [
    productId,
    tenant.org.id,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at)
     values (?, ?, ?, 'one_time', 'brl', ?, 'unspecified', now())`,
    [priceId, productId, tenant.org.id, amount],
  );
  await sql(
    `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, 'Ana', now(), now())`,
    [customerId, tenant.org.id, `${unique('buyer')}@example.com`],
  );
  const charge = await cardPaymentsOf(api.gateway).chargeCard(
    {
      reference: uuidv7(),
      amount,
      currency: 'BRL',
      installments,
      noFeesInstallments: false,
      card: {
        number: '4111111111111111',
        holderName: 'ANA',
        expirationMonth: '12',
        expirationYear: '2035',
        cvv: '123',
      },
      capture: true,
    },
    `test:${uuidv7()}`,
  );
  expect(charge.status).toBe('succeeded');
  const transactionId = uuidv7();
  await sql(
    `insert into transactions (id, organization_id, gateway_transaction_id, status, payment_type, amount, currency,
       installments, captured_amount, created_at, updated_at)
     values (?, ?, ?, 'succeeded', 'credit', ?, 'BRL', ?, ?, now(), now())`,
    [transactionId, tenant.org.id, charge.id, charge.amount, installments, charge.capturedAmount],
  );
  const saleId = uuidv7();
  await sql(
    `insert into sales (id, organization_id, transaction_id, customer_id, product_id, price_id, currency, subtotal_amount,
       amount, installments, payment_method, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, 'BRL', ?, ?, ?, 'credit_card', 'paid', now(), now())`,
    [saleId, tenant.org.id, transactionId, customerId, productId, priceId, amount, amount, installments],
  );
  return {
    saleId,
    transactionId,
    gatewayTransactionId: charge.id,
    customerId,
    productId,
    captured: charge.capturedAmount,
  };
}

describe('sales', () => {
  it('lists and shows the organization’s sales with customer and product', async () => {
    const t = await makeTenant(api.orm);
    const sale = await paidSale(t, 4990);
    const list = await api.call('GET', '/api/v1/sales/', { token: t.oat });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total_count: 1, max_page: 1 });
    expect(list.body.items[0]).toMatchObject({
      id: sale.saleId,
      gateway_transaction_id: sale.gatewayTransactionId,
      customer: { id: sale.customerId, name: 'Ana' },
      product: { id: sale.productId, name: 'Course' },
      currency: 'BRL',
      amount: 4990,
      status: 'paid',
      refunded_amount: 0,
    });
    const one = await api.call('GET', `/api/v1/sales/${sale.saleId}`, { headers: { 'x-service-api-key': t.apiKey } });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(list.body.items[0]);
  });

  it('filters by status and customer and keeps other organizations out', async () => {
    const t = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const sale = await paidSale(t);
    expect((await api.call('GET', `/api/v1/sales/?status=refunded`, { token: t.oat })).body.items).toEqual([]);
    const byCustomer = await api.call('GET', `/api/v1/sales/?customer_id=${sale.customerId}`, { token: t.oat });
    expect(byCustomer.body.items.map((s: any) => s.id)).toEqual([sale.saleId]);
    expect((await api.call('GET', `/api/v1/sales/${sale.saleId}`, { token: other.oat })).status).toBe(404);
    expect((await api.call('GET', '/api/v1/sales/', { token: other.oat })).body.items).toEqual([]);
  });
});

describe('refunds', () => {
  it('refunds part of a sale, then the rest, and never more than was captured', async () => {
    const t = await makeTenant(api.orm);
    const sale = await paidSale(t, 10_000);
    const simulator = api.gateway as SimulatedGateway;

    const partial = await api.call('POST', '/api/v1/refunds/', {
      token: t.oat,
      body: { sale_id: sale.saleId, amount: 2500, reason: 'damaged' },
    });
    expect(partial.status).toBe(201);
    expect(partial.body).toMatchObject({
      sale_id: sale.saleId,
      amount: 2500,
      currency: 'BRL',
      status: 'succeeded',
      reason: 'damaged',
    });
    let shown = await api.call('GET', `/api/v1/sales/${sale.saleId}`, { token: t.oat });
    expect(shown.body).toMatchObject({ status: 'partially_refunded', refunded_amount: 2500 });
    expect((await simulator.getTransaction(sale.gatewayTransactionId))!).toMatchObject({
      status: 'partial_refunded',
      refundedAmount: 2500,
    });

    const tooMuch = await api.call('POST', '/api/v1/refunds/', {
      token: t.oat,
      body: { sale_id: sale.saleId, amount: 7501 },
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatchObject({
      code: 'refund_exceeds_captured',
      detail: 'At most 7500 cents can still be refunded',
    });

    const rest = await api.call('POST', '/api/v1/refunds/', { token: t.oat, body: { sale_id: sale.saleId } });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ amount: 7500, status: 'succeeded' });
    shown = await api.call('GET', `/api/v1/sales/${sale.saleId}`, { token: t.oat });
    expect(shown.body).toMatchObject({ status: 'refunded', refunded_amount: 10_000 });
    const [row] = await sql('select status, refunded_amount from transactions where id = ?', [sale.transactionId]);
    expect(row).toEqual({ status: 'refunded', refunded_amount: '10000' });

    const nothing = await api.call('POST', '/api/v1/refunds/', { token: t.oat, body: { sale_id: sale.saleId } });
    expect(nothing.status).toBe(422);
    expect(nothing.body.code).toBe('nothing_to_refund');

    const events = await sql(
      `select type from events where organization_id = ? and type in ('refund.created', 'sale.refunded')`,
      [t.org.id],
    );
    expect(events.map((e) => e.type).sort()).toEqual([
      'refund.created',
      'refund.created',
      'sale.refunded',
      'sale.refunded',
    ]);
    const list = await api.call('GET', `/api/v1/refunds/?sale_id=${sale.saleId}`, { token: t.oat });
    expect(list.body.pagination.total_count).toBe(2);
  });

  it('refunds a sale in 3 instalments with interest by its price, as the gateway measures it (issue 33 §1)', async () => {
    const t = await makeTenant(api.orm);
    const sale = await paidSale(t, 10_000, 3);
    const simulator = api.gateway as SimulatedGateway;
    // The buyer paid the price and the gateway's interest; what was captured is the price.
    expect(await simulator.getTransaction(sale.gatewayTransactionId)).toMatchObject({
      amount: 10_605,
      baseAmount: 10_000,
      capturedAmount: 10_000,
    });
    const withInterest = await api.call('POST', '/api/v1/refunds/', {
      token: t.oat,
      body: { sale_id: sale.saleId, amount: 10_605 },
    });
    expect(withInterest.status).toBe(422);
    expect(withInterest.body).toMatchObject({ code: 'refund_exceeds_captured' });
    await expect(simulator.refund(sale.gatewayTransactionId, 10_605, `test:${uuidv7()}`)).rejects.toThrow(
      'refund exceeds captured amount',
    );

    const full = await api.call('POST', '/api/v1/refunds/', { token: t.oat, body: { sale_id: sale.saleId } });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({ amount: 10_000, status: 'succeeded' });
    const shown = await api.call('GET', `/api/v1/sales/${sale.saleId}`, { token: t.oat });
    expect(shown.body).toMatchObject({ status: 'refunded', refunded_amount: 10_000 });
    expect(await simulator.getTransaction(sale.gatewayTransactionId)).toMatchObject({
      status: 'refunded',
      refundedAmount: 10_000,
    });
  });

  it('lets only one of two concurrent full refunds through', async () => {
    const t = await makeTenant(api.orm);
    const sale = await paidSale(t, 8000);
    const results = await Promise.all(
      [1, 2].map(() => api.call('POST', '/api/v1/refunds/', { token: t.oat, body: { sale_id: sale.saleId } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    const [row] = await sql('select refunded_amount from transactions where id = ?', [sale.transactionId]);
    expect(row.refunded_amount).toBe('8000');
    expect((await api.gateway.getTransaction(sale.gatewayTransactionId))!.refundedAmount).toBe(8000);
  });

  it('keeps retrying through a gateway outage with the same key, and refunds exactly once', async () => {
    const t = await makeTenant(api.orm);
    const sale = await paidSale(t, 3000);
    // The gateway's books refuse refunds of this transaction for now: every attempt fails like an outage.
    await sql(`create or replace function gateway_sim.refuse_refund() returns trigger language plpgsql as $$
      begin
        if new.kind = 'refund' and new.transaction_id = '${sale.gatewayTransactionId}' then raise exception 'gateway down'; end if;
        return new;
      end $$`);
    await sql(
      `create trigger refuse_refund before insert on gateway_sim.ledger for each row execute function gateway_sim.refuse_refund()`,
    );
    let res;
    try {
      res = await api.call('POST', '/api/v1/refunds/', { token: t.oat, body: { sale_id: sale.saleId, amount: 1000 } });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('pending');
    } finally {
      await sql('drop trigger refuse_refund on gateway_sim.ledger');
    }
    expect(await waitForRefund(t, res.body.id, (s) => s !== 'pending')).toBe('succeeded');
    const ledger = await sql(`select amount from gateway_sim.ledger where transaction_id = ? and kind = 'refund'`, [
      sale.gatewayTransactionId,
    ]);
    expect(ledger).toEqual([{ amount: '1000' }]);
    expect((await api.call('GET', `/api/v1/sales/${sale.saleId}`, { token: t.oat })).body).toMatchObject({
      status: 'partially_refunded',
      refunded_amount: 1000,
    });
  });

  it('needs write access and the sale of the credential’s organization', async () => {
    const t = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const sale = await paidSale(t, 1000);
    const readOnly = await makeApiKey(api.orm, t.org.id, { scopes: ['read'] });
    const denied = await api.call('POST', '/api/v1/refunds/', {
      headers: { 'x-service-api-key': readOnly.key },
      body: { sale_id: sale.saleId },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('Api key lacks required scope');
    expect(
      (await api.call('POST', '/api/v1/refunds/', { token: other.oat, body: { sale_id: sale.saleId } })).status,
    ).toBe(404);
    const withKey = await api.call('POST', '/api/v1/refunds/', {
      headers: { 'x-service-api-key': t.apiKey },
      body: { sale_id: sale.saleId, amount: 1 },
    });
    expect(withKey.status).toBe(201);
    expect((await api.call('GET', `/api/v1/refunds/${withKey.body.id}`, { token: other.oat })).status).toBe(404);
  });

  it('leaves a refund whose workflow could not be started pending, never failed, and the sweep settles it', async () => {
    const t = await makeTenant(api.orm);
    const sale = await paidSale(t, 6000);
    // The same API, but its Temporal client points at a port where nothing listens.
    const cutOff = await startApi({ TEMPORAL_ADDRESS: `127.0.0.1:${await closedPort()}` });
    let res;
    try {
      res = await cutOff.call('POST', '/api/v1/refunds/', {
        token: t.oat,
        body: { sale_id: sale.saleId, amount: 1500 },
        headers: { 'idempotency-key': uuidv7() },
      });
    } finally {
      await cutOff.close();
    }
    // Accepted and pending: the record exists, and only its workflow will settle it.
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: 1500, status: 'pending' });
    const [row] = await sql('select status from refunds where id = ?', [res.body.id]);
    expect(row.status).toBe('pending');
    expect(await refundLedger(sale.gatewayTransactionId)).toEqual([]);
    // Its amount stays taken: a second full refund may only have the rest.
    const rest = await api.call('POST', '/api/v1/refunds/', {
      token: t.oat,
      body: { sale_id: sale.saleId, amount: 4501 },
    });
    expect(rest.body.code).toBe('refund_exceeds_captured');

    const temporal = createTemporalClient(api.config);
    try {
      const pass = await restartStrandedRefunds({ temporal, config: api.config, orm: api.orm }, null, {
        strandedAfterMs: 0,
        batch: 1000,
      });
      expect(pass.started).toContain(res.body.id);
      expect(await waitForRefund(t, res.body.id, (s) => s !== 'pending')).toBe('succeeded');
      // A second pass finds nothing of it left to do.
      const again = await restartStrandedRefunds({ temporal, config: api.config, orm: api.orm }, null, {
        strandedAfterMs: 0,
        batch: 1000,
      });
      expect(again.started).not.toContain(res.body.id);
    } finally {
      await temporal.connection.close();
    }
    expect(await refundLedger(sale.gatewayTransactionId)).toEqual([{ amount: '1500' }]);
    expect((await api.call('GET', `/api/v1/sales/${sale.saleId}`, { token: t.oat })).body).toMatchObject({
      status: 'partially_refunded',
      refunded_amount: 1500,
    });
  });
});

/** A local port nothing listens on: connections to it are refused at once. */
const closedPort = freePort;

async function refundLedger(gatewayTransactionId: string) {
  return sql(`select amount from gateway_sim.ledger where transaction_id = ? and kind = 'refund'`, [
    gatewayTransactionId,
  ]);
}

/** Reads the refund until `done` holds for its status, and returns that status; fails past `timeoutMs`. */
async function waitForRefund(t: Tenant, refundId: string, done: (status: string) => boolean, timeoutMs = 30_000) {
  let status: string | undefined;
  return waitFor(
    async () => {
      status = (await api.call('GET', `/api/v1/refunds/${refundId}`, { token: t.oat })).body.status as string;
      return done(status) && status;
    },
    { what: `refund ${refundId} to settle`, timeoutMs, intervalMs: 200, describe: () => String(status) },
  );
}
