import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { waitFor } from '../helpers/processes.ts';
import {
  checkoutRow,
  leaveLostConfirmation,
  recordHistory as saveHistory,
  waitForCheckoutStatus,
  makeCheckout as makeFixture,
  type CheckoutFixture,
  type CheckoutFixtureOptions,
} from '../helpers/checkouts.ts';
import { checkoutStateQuery, checkoutWorkflowId } from '../../contracts/checkout.ts';

/**
 * Every path of the checkout workflow on the real dev server, run by the real worker process, with
 * the simulated gateway's books in PostgreSQL. Checkouts are written by SQL and their workflow
 * started here, as the checkout creation endpoint does.
 */
let api: TestApi;
let sim: SimulatedGateway;
let temporal: Client;
beforeAll(async () => {
  api = await startApi({ LOG_LEVEL: process.env.API_LOG_LEVEL ?? 'silent' });
  temporal = createTemporalClient(api.config);
  sim = api.gateway as SimulatedGateway;
  sim.callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
  sim.callbacks.callbackSecret = api.config.gatewayCallbackSecret;
});
afterAll(async () => {
  await sim.settleCallbacks();
  await temporal.connection.close();
  await api.close();
});

const CustomerId = defineSearchAttributeKey('CustomerId', 'KEYWORD');

const APPROVE = '4111111111111111';
const card = (number: string, installments = 1) => ({
  number,
  holder_name: 'Ana Souza',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
  installments,
});

const makeCheckout = (options: CheckoutFixtureOptions = {}) => makeFixture(api.orm, temporal, options);

const confirm = (c: CheckoutFixture, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, { body });

const row = (checkoutId: string) => checkoutRow(api.orm, checkoutId);
const waitForStatus = (checkoutId: string, status: string, timeoutMs?: number) =>
  waitForCheckoutStatus(api.orm, checkoutId, status, timeoutMs);

async function captures(checkoutId: string): Promise<number> {
  const [r] = await api.orm.em.getConnection().execute<{ n: string }[]>(
    `select count(*) as n from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
     where t.reference = ? and l.kind = 'capture'`,
    [checkoutId],
  );
  return Number(r!.n);
}

async function eventTypes(organizationId: string): Promise<string[]> {
  const rows = await api.orm.em
    .getConnection()
    .execute<{ type: string }[]>('select type from events where organization_id = ? order by created_at, id', [
      organizationId,
    ]);
  return rows.map((r) => r.type);
}

const recordHistory = (name: string, checkoutId: string) => saveHistory(temporal, name, checkoutId);

async function workflowResult(checkoutId: string) {
  const handle = temporal.workflow.getHandle(checkoutWorkflowId(checkoutId));
  const result = await handle.result();
  const description = await handle.describe();
  const history = JSON.stringify(await handle.fetchHistory());
  return { result, description, history };
}

describe('card', () => {
  it('an approved card: checkout succeeded, one capture, transaction, customer, sale and events', async () => {
    const c = await makeCheckout({ amount: 12_345 });
    const res = await confirm(c, { payment_method: 'credit_card', customer_name: 'Ana Souza', card: card(APPROVE) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: c.id,
      status: 'succeeded',
      payment_method: 'credit_card',
      amount: 12_345,
      installments: 1,
      installment_amount: 12_345,
      total_amount: 12_345,
      currency: 'BRL',
      gateway_payment_data: {
        transaction_id: expect.any(String),
        status: 'succeeded',
        authorization_code: expect.stringMatching(/^[0-9A-F]{6}$/),
        installments: 1,
      },
      decline_reason: null,
      customer_id: expect.any(String),
      subscription_id: null,
    });
    expect(await captures(c.id)).toBe(1);

    const conn = api.orm.em.getConnection();
    const [tx] = await conn.execute<Record<string, any>[]>('select * from transactions where checkout_id = ?', [c.id]);
    expect(tx).toMatchObject({
      gateway_transaction_id: res.body.gateway_payment_data.transaction_id,
      status: 'succeeded',
      payment_type: 'credit',
      amount: '12345',
      currency: 'BRL',
      installments: 1,
      captured_amount: '12345',
      card: { brand: 'visa', first4: '4111', last4: '1111' },
    });
    const [customer] = await conn.execute<Record<string, any>[]>('select * from customers where organization_id = ?', [
      c.organizationId,
    ]);
    expect(customer).toMatchObject({ email: c.email, name: 'Ana Souza' });
    // The answer names the customer the sale found or made, as the checkout's GET does.
    expect(res.body.customer_id).toBe(customer!.id);
    const sales = await conn.execute<Record<string, any>[]>('select * from sales where checkout_id = ?', [c.id]);
    expect(sales).toHaveLength(1);
    expect(sales[0]).toMatchObject({
      status: 'paid',
      amount: '12345',
      subtotal_amount: '12345',
      payment_method: 'credit_card',
      customer_id: customer!.id,
      transaction_id: tx!.id,
      installments: 1,
    });
    expect(await row(c.id)).toMatchObject({
      status: 'succeeded',
      customer_id: customer!.id,
      payment_method: 'credit_card',
    });
    expect(await eventTypes(c.organizationId)).toEqual([
      'checkout.updated', // confirmed
      'customer.created',
      'sale.created',
      'sale.paid',
      'checkout.updated', // succeeded
    ]);

    const { result, description, history } = await workflowResult(c.id);
    expect(result).toEqual({ status: 'succeeded' });
    expect(description.typedSearchAttributes.get(CustomerId)).toBe(customer!.id);
    await recordHistory('card', c.id);
    // The card never reaches Temporal's history, our tables or the event log: only its token does.
    expect(history).not.toContain(APPROVE);
    const everything = JSON.stringify([
      await conn.execute('select * from transactions where checkout_id = ?', [c.id]),
      await conn.execute('select * from checkouts where id = ?', [c.id]),
      await conn.execute('select * from events where organization_id = ?', [c.organizationId]),
    ]);
    expect(everything).not.toContain(APPROVE);
    expect(everything).not.toContain('"cvv"');
  });

  it.each([
    ['card_declined', '4000000000000002'],
    ['insufficient_funds', '4000000000009995'],
    ['expired_card', '4000000000000069'],
  ])('a %s decline leaves the checkout open with its reason; a good card then pays it once', async (reason, number) => {
    const c = await makeCheckout({ amount: 5_000 });
    const declined = await confirm(c, { payment_method: 'credit_card', card: card(number) });
    expect(declined.status).toBe(422);
    expect(declined.body).toEqual({
      error: 'Payment declined',
      code: 'payment_declined',
      detail: reason,
      decline_reason: reason,
    });
    expect(await row(c.id)).toMatchObject({ status: 'open', decline_reason: reason });
    const [failed] = await api.orm.em
      .getConnection()
      .execute<Record<string, any>[]>('select status, decline_reason from transactions where checkout_id = ?', [c.id]);
    expect(failed).toEqual({ status: 'failed', decline_reason: reason });
    expect(await captures(c.id)).toBe(0);

    const paid = await confirm(c, { payment_method: 'credit_card', card: card(APPROVE) });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'succeeded', decline_reason: null });
    expect(await captures(c.id)).toBe(1);
    const sales = await api.orm.em.getConnection().execute('select id from sales where checkout_id = ?', [c.id]);
    expect(sales).toHaveLength(1);
  });

  it('a processing error is retried with the same idempotency key and charges once', async () => {
    const c = await makeCheckout({ amount: 7_700 });
    const res = await confirm(c, { payment_method: 'credit_card', card: card('4000000000000119') });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
    expect(await captures(c.id)).toBe(1);
    const attempts = await api.orm.em
      .getConnection()
      .execute<{ key: string }[]>("select key from gateway_sim.attempts where key = ? and operation = 'charge_card'", [
        `checkout:${c.id}:charge:1`,
      ]);
    expect(attempts).toHaveLength(2);
  });

  it('a charge that never reached the gateway is looked up, declined as a processing error, and paid on the next try', async () => {
    const c = await makeCheckout({ amount: 6_600 });
    const conn = api.orm.em.getConnection();
    // The gateway's books refuse this checkout's charge for now: every attempt fails like an outage.
    await conn.execute(`create or replace function gateway_sim.refuse_charge() returns trigger language plpgsql as $$
      begin
        if new.reference = '${c.id}' then raise exception 'gateway down'; end if;
        return new;
      end $$`);
    await conn.execute(
      'create trigger refuse_charge before insert on gateway_sim.transactions for each row execute function gateway_sim.refuse_charge()',
    );
    try {
      const failed = await confirm(c, { payment_method: 'credit_card', card: card(APPROVE) });
      expect(failed.status).toBe(422);
      expect(failed.body.decline_reason).toBe('processing_error');
    } finally {
      await conn.execute('drop trigger refuse_charge on gateway_sim.transactions');
    }
    const paid = await confirm(c, { payment_method: 'credit_card', card: card(APPROVE) });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('succeeded');
    expect(await captures(c.id)).toBe(1);
    const keys = await conn.execute<{ key: string }[]>(
      "select distinct key from gateway_sim.attempts where key like ? and operation = 'charge_card'",
      [`checkout:${c.id}:charge:%`],
    );
    // The first slot was never processed (the lookup said so), so the next try has a key of its own.
    expect(keys.map((k) => k.key).sort()).toEqual([`checkout:${c.id}:charge:1`, `checkout:${c.id}:charge:2`]);
  });

  it('a card that only pre-authorizes is captured once', async () => {
    const c = await makeCheckout({ amount: 8_800 });
    const res = await confirm(c, { payment_method: 'credit_card', card: card('4000000000003220') });
    expect(res.status).toBe(200);
    expect(res.body.gateway_payment_data.status).toBe('succeeded');
    expect(await captures(c.id)).toBe(1);
    const t = await sim.getTransaction(res.body.gateway_payment_data.transaction_id);
    expect(t).toMatchObject({ status: 'succeeded', capturedAmount: 8_800 });
  });

  it('installments add the Price-table interest to the transaction; the sale keeps the checkout amount', async () => {
    const c = await makeCheckout({ amount: 10_000 });
    const res = await confirm(c, { payment_method: 'credit_card', card: card(APPROVE, 3) });
    expect(res.status).toBe(200);
    expect(res.body.gateway_payment_data.installments).toBe(3);
    const t = await sim.getTransaction(res.body.gateway_payment_data.transaction_id);
    // PMT(10000, 2.99 %, 3) = 3535.10… → 3535 per installment.
    expect(t).toMatchObject({ amount: 10_605, installmentAmounts: [3535, 3535, 3535] });
    const [tx] = await api.orm.em
      .getConnection()
      .execute<Record<string, any>[]>('select amount, installments from transactions where checkout_id = ?', [c.id]);
    expect(tx).toEqual({ amount: '10605', installments: 3 });
  });

  it('concurrent confirmations charge once; the others get 409', async () => {
    const c = await makeCheckout({ amount: 9_900 });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => confirm(c, { payment_method: 'credit_card', card: card(APPROVE) })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(['checkout_not_open', 'confirmation_in_progress']).toContain(r.body.code);
      expect(r.body).toEqual({
        error: expect.any(String),
        code: r.body.code,
        ...(r.body.detail ? { detail: r.body.detail } : {}),
      });
    }
    expect(await captures(c.id)).toBe(1);
  });
});

describe('pix and boleto', () => {
  it('pix: issued (confirmed, QR code), paid through the gateway, callback → succeeded', async () => {
    const c = await makeCheckout({ amount: 4_990 });
    const res = await confirm(c, {
      payment_method: 'pix',
      customer_name: 'Bruno Lima',
      customer_tax_id: '529.982.247-25',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: c.id,
      status: 'confirmed',
      payment_method: 'pix',
      amount: 4_990,
      gateway_payment_data: {
        status: 'pending',
        installments: 1,
        pix: { qr_code: expect.any(String), qr_code_image: expect.stringMatching(/^data:image\/png;base64,/) },
      },
    });
    // A second confirmation while the pix is in flight is refused.
    const again = await confirm(c, { payment_method: 'pix' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('checkout_not_open');

    await sim.pay(res.body.gateway_payment_data.transaction_id);
    await sim.settleCallbacks();
    const done = await waitForStatus(c.id, 'succeeded');
    expect(done.payment_method).toBe('pix');
    expect(await captures(c.id)).toBe(1);
    const conn = api.orm.em.getConnection();
    const [sale] = await conn.execute<Record<string, any>[]>('select * from sales where checkout_id = ?', [c.id]);
    expect(sale).toMatchObject({ status: 'paid', amount: '4990', payment_method: 'pix' });
    const [customer] = await conn.execute<Record<string, any>[]>('select * from customers where id = ?', [
      sale!.customer_id,
    ]);
    expect(customer).toMatchObject({ name: 'Bruno Lima', tax_id: { type: 'cpf', number: '52998224725' } });
    const callbacks = await conn.execute('select id from gateway_callbacks where payload->>? = ?', [
      'transactionId',
      res.body.gateway_payment_data.transaction_id,
    ]);
    expect(callbacks.length).toBeGreaterThanOrEqual(1);
    expect((await workflowResult(c.id)).result).toEqual({ status: 'succeeded' });
  });

  it('pix: paid without a notice, it is found paid at its deadline and the checkout succeeds', async () => {
    const c = await makeCheckout({ amount: 2_200, expiresInMs: 4_000 });
    const res = await confirm(c, { payment_method: 'pix' });
    expect(res.body.status).toBe('confirmed');
    // The gateway's notice never comes: only the deadline's own check can find the payment.
    const callbackUrl = sim.callbacks.callbackUrl;
    sim.callbacks.callbackUrl = undefined;
    try {
      await sim.pay(res.body.gateway_payment_data.transaction_id);
    } finally {
      sim.callbacks.callbackUrl = callbackUrl;
    }
    expect((await row(c.id)).status).toBe('confirmed');
    await waitForStatus(c.id, 'succeeded');
    expect(await captures(c.id)).toBe(1);
    expect((await workflowResult(c.id)).result).toEqual({ status: 'succeeded' });
  });

  it('pix: never paid, it expires and the checkout fails', async () => {
    const c = await makeCheckout({ amount: 3_000, expiresInMs: 4_000 });
    const res = await confirm(c, { payment_method: 'pix' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('confirmed');
    const failed = await waitForStatus(c.id, 'failed');
    expect(failed.decline_reason).toBe('expired');
    expect(await captures(c.id)).toBe(0);
    expect((await workflowResult(c.id)).result).toEqual({ status: 'failed' });
    const sales = await api.orm.em.getConnection().execute('select id from sales where checkout_id = ?', [c.id]);
    expect(sales).toHaveLength(0);
  });

  it('boleto: issued with barcode and due date, paid, succeeded', async () => {
    const c = await makeCheckout({ amount: 15_000 });
    const res = await confirm(c, {
      payment_method: 'boleto',
      customer_name: 'Carla Dias',
      customer_tax_id: '11.222.333/0001-81',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'confirmed',
      payment_method: 'boleto',
      gateway_payment_data: {
        status: 'pending',
        boleto: {
          barcode: expect.stringMatching(/^\d{44}$/),
          digitable_line: expect.any(String),
          due_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        },
      },
    });
    await sim.pay(res.body.gateway_payment_data.transaction_id);
    await sim.settleCallbacks();
    await waitForStatus(c.id, 'succeeded');
    expect(await captures(c.id)).toBe(1);
    expect((await workflowResult(c.id)).result).toEqual({ status: 'succeeded' });
  });

  it('boleto: overdue at the gateway → callback → the checkout fails', async () => {
    const c = await makeCheckout({ amount: 15_000 });
    const res = await confirm(c, {
      payment_method: 'boleto',
      customer_name: 'Carla Dias',
      customer_tax_id: '11.222.333/0001-81',
    });
    expect(res.status).toBe(200);
    await sim.expire(res.body.gateway_payment_data.transaction_id);
    await sim.settleCallbacks();
    const failed = await waitForStatus(c.id, 'failed');
    expect(failed.decline_reason).toBe('overdue');
    expect(await captures(c.id)).toBe(0);
    expect((await workflowResult(c.id)).result).toEqual({ status: 'failed' });
  });
});

describe('expiry', () => {
  it('an unpaid checkout expires at expires_at; confirming it afterwards is a 409', async () => {
    const c = await makeCheckout({ expiresInMs: 2_000 });
    const expired = await waitForStatus(c.id, 'expired');
    expect(expired.status).toBe('expired');
    expect(await eventTypes(c.organizationId)).toEqual(['checkout.updated']);
    expect((await workflowResult(c.id)).result).toEqual({ status: 'expired' });

    const res = await confirm(c, { payment_method: 'credit_card', card: card(APPROVE) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'Checkout is not open',
      code: 'checkout_not_open',
      detail: 'Checkout is expired',
    });
    expect(await captures(c.id)).toBe(0);
  });

  it('an expiry that finds a confirmation its run never saw (the Update lost with its task) records the sale it paid', async () => {
    // What a workflow task lost with its worker left, its Update lost with it: the checkout prepared
    // and the card charged by the slot's key, nothing in the run's history.
    const c = await makeCheckout({ expiresInMs: 3_000 });
    // The run has read the checkout open and waits for its expiry (its timer started).
    await waitFor(
      async () => {
        const history = await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).fetchHistory();
        return history.events?.some((e) => e.timerStartedEventAttributes) ?? false;
      },
      { what: 'the checkout run waiting for its expiry', timeoutMs: 10_000, intervalMs: 20 },
    );
    const charged = (await leaveLostConfirmation(api.orm, sim, c.id, { charge: true }))!;
    expect(charged.status).toBe('succeeded');

    const paid = await waitForStatus(c.id, 'succeeded');
    expect(paid.gateway_payment_data).toMatchObject({ transaction_id: charged.id, status: 'succeeded' });
    expect(await captures(c.id)).toBe(1);
    expect(await eventTypes(c.organizationId)).toEqual(expect.arrayContaining(['sale.created']));
    expect((await workflowResult(c.id)).result).toEqual({ status: 'succeeded' });
  });

  it('the state query reports the confirmation attempts', async () => {
    const c = await makeCheckout();
    await confirm(c, { payment_method: 'credit_card', card: card('4000000000000002') });
    const state = await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).query(checkoutStateQuery);
    expect(state).toMatchObject({ status: 'open', declined: 1, confirming: false, declineReason: 'card_declined' });
  });
});
