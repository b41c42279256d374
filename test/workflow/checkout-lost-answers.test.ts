import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { openOrm, type Orm } from '../../db/orm.ts';
import { buildGatewayServer, GatewayFaults } from '@billing/simulated-gateway/server';
import { ENGINE_PIX_WINDOW, SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startWorkerProcess, stopProcess } from '../global-setup.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import {
  checkoutRow,
  ledgerOf,
  makeCheckout as makeFixture,
  waitForCheckoutStatus,
  type CheckoutFixture,
  type CheckoutFixtureOptions,
} from '../helpers/checkouts.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * A charge whose answer is lost is not a decline. The API and a worker of this file's own task queue
 * talk to the standalone simulated gateway over real HTTP, whose fault injection lets the gateway
 * capture and then lose the answer, or answer 503 without acting. The simulator's ledger says what
 * was really captured.
 */
const QUEUE = 'billing-test-lost-answers';
const API_KEY = 'gw_lost_answers_0123456789';

let orm: Orm;
let simulator: SimulatedGateway;
let faults: GatewayFaults;
let gatewayServer: FastifyInstance;
let api: TestApi;
let worker: ChildProcess;
let temporal: Client;
let refuseAfterFirst: { seen: number; upTo: number } | null = null;
/** A test may hold the first charge call until the workflow has looked the charge up (then it is carried out). */
let lateCharge: { held: boolean; lookedUp: () => void; released: Promise<void> } | null = null;
const heldCalls = new WeakSet<object>();

beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 5);
  // The engine asks a pix of a checkout for what the checkout has left: the sandbox's window (decision 0080).
  simulator = new SimulatedGateway(orm, {}, { pixExpiryWindow: ENGINE_PIX_WINDOW });
  faults = new GatewayFaults();
  gatewayServer = buildGatewayServer({ gateway: simulator, apiKey: API_KEY, faults, sandbox: simulator });
  // A test may answer charge calls 503 itself, without the gateway acting, from the second one on.
  gatewayServer.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'POST' || request.url !== '/v1/transactions') return;
    if (lateCharge && !lateCharge.held) {
      lateCharge.held = true;
      heldCalls.add(request);
      if (refuseAfterFirst) refuseAfterFirst.seen++; // the first call, let through once released
      return;
    }
    if (!refuseAfterFirst) return;
    if (refuseAfterFirst.seen++ > 0 && refuseAfterFirst.seen <= refuseAfterFirst.upTo) {
      return reply.status(503).send({ error: { type: 'unavailable', message: 'Injected by the test' } });
    }
  });
  // Held once its body is read (its caller has given up by then: an unread body would be lost).
  gatewayServer.addHook('preHandler', async (request) => {
    if (heldCalls.has(request)) await lateCharge?.released;
  });
  gatewayServer.addHook('onResponse', async (request) => {
    // Released by the lookup that follows the last refused retry: the one that decides the outcome.
    const retriesDone = !refuseAfterFirst || refuseAfterFirst.seen >= refuseAfterFirst.upTo;
    if (lateCharge && retriesDone && request.method === 'GET' && request.url.startsWith('/v1/transactions?')) {
      lateCharge.lookedUp();
    }
  });
  await gatewayServer.listen({ host: '127.0.0.1', port: 0 });
  const { port } = gatewayServer.server.address() as { port: number };
  const env = {
    TEMPORAL_TASK_QUEUE: QUEUE,
    GATEWAY: 'http',
    GATEWAY_URL: `http://127.0.0.1:${port}`,
    GATEWAY_API_KEY: API_KEY,
    GATEWAY_TIMEOUT_MS: '3000',
  };
  api = await startApi(env);
  worker = await startWorkerProcess(env);
  temporal = createTemporalClient(api.config);
  simulator.callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
  simulator.callbacks.callbackSecret = api.config.gatewayCallbackSecret;
});
afterEach(() => {
  faults.reset();
  simulator.faults.searchLagMs = 0;
  refuseAfterFirst = null;
  lateCharge?.lookedUp();
  lateCharge = null;
});
afterAll(async () => {
  await stopProcess(worker);
  await temporal.connection.close();
  await api.close();
  await gatewayServer.close();
  await orm.close();
});

const card = () => ({
  number: '4111111111111111',
  holder_name: 'Ana Souza',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
  installments: 1,
});

async function makeCheckout(options: CheckoutFixtureOptions = {}): Promise<CheckoutFixture> {
  const c = await makeFixture(api.orm, temporal, options);
  // The fixture starts workflows on the harness's queue; this file's worker has its own.
  const handle = temporal.workflow.getHandle(checkoutWorkflowId(c.id));
  await handle.terminate('moved to the lost-answers queue');
  await temporal.workflow.start('checkoutWorkflow', {
    workflowId: checkoutWorkflowId(c.id),
    taskQueue: QUEUE,
    args: [{ checkoutId: c.id, organizationId: c.organizationId }],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
  return c;
}
const confirm = (c: CheckoutFixture, body: Record<string, unknown>) =>
  api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, { body });

/** Every payment call that carries a charge: the first attempt and the workflow's quick retries (3 in all). */
const CHARGE_ATTEMPTS = 3;

describe('a charge whose answer is lost', () => {
  it('is looked up at the gateway and the buyer is told the truth: paid, once', async () => {
    const c = await makeCheckout({ amount: 5_000 });
    faults.dropAnswerNext(CHARGE_ATTEMPTS, 'createTransaction');
    const res = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
    expect(await ledgerOf(orm, c.id)).toMatchObject({ captures: 1, captured: 5_000 });
    expect(await orm.em.getConnection().execute('select amount from sales where checkout_id = ?', [c.id])).toEqual([
      { amount: '5000' },
    ]);
    await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).result();
  });

  it('while the gateway cannot be asked, the checkout stays confirmed, refuses pix, and ends paid once', async () => {
    const c = await makeCheckout({ amount: 6_100 });
    faults.dropAnswerNext(CHARGE_ATTEMPTS, 'createTransaction');
    faults.failNext(CHARGE_ATTEMPTS + 2, 503, 'findTransactions');
    const res = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'confirmed', gateway_payment_data: null, decline_reason: null });
    // The buyer switches to pix: refused while the card's outcome is unknown.
    const pix = await confirm(c, { payment_method: 'pix' });
    expect([pix.status, pix.body.code]).toEqual([409, 'checkout_not_open']);
    const view = await api.call('GET', `/api/v1/checkouts/client/${c.clientSecret}`);
    expect(view.body.status).toBe('confirmed');
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded', 60_000);
    expect(await ledgerOf(orm, c.id)).toMatchObject({ captures: 1, captured: 6_100 });
  }, 90_000);

  it('does not let the checkout expire before the gateway has answered', async () => {
    const c = await makeCheckout({ amount: 4_200, expiresInMs: 3_000 });
    faults.dropAnswerNext(CHARGE_ATTEMPTS, 'createTransaction');
    // Lookups fail for longer than the checkout has left: its deadline passes while the charge is unresolved.
    faults.failNext(CHARGE_ATTEMPTS + 4, 503, 'findTransactions');
    const res = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect(res.body.status).toBe('confirmed');
    const done = await waitForCheckoutStatus(api.orm, c.id, 'succeeded', 60_000);
    expect(new Date(done.expires_at).getTime()).toBeLessThan(Date.now());
    expect(await ledgerOf(orm, c.id)).toMatchObject({ captures: 1, captured: 4_200 });
  }, 90_000);

  it('a charge the gateway never received is a processing error; the buyer then pays by pix, and no card is captured', async () => {
    const c = await makeCheckout({ amount: 3_300 });
    faults.failNext(CHARGE_ATTEMPTS, 503, 'createTransaction');
    const res = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect([res.status, res.body.decline_reason]).toEqual([422, 'processing_error']);
    expect((await checkoutRow(api.orm, c.id)).status).toBe('open');
    const pix = await confirm(c, { payment_method: 'pix' });
    expect([pix.status, pix.body.status]).toEqual([200, 'confirmed']);
    expect(await ledgerOf(orm, c.id)).toMatchObject({ captures: 0 });
  });

  it('a charge that reaches the gateway after it was looked up is refunded before the run ends', async () => {
    const c = await makeCheckout({ amount: 2_500 });
    // The first charge call is held past the adapter's timeout (3 s) until the workflow has looked the
    // charge up, and then carried out; its retries are refused without the gateway acting, so the lookup
    // finds nothing and the buyer may try again. (Held on the lookup, not for a fixed time: on a loaded
    // machine the retries and the lookup can take longer than any fixed delay.)
    let lookedUp = () => {};
    const released = new Promise<void>((resolve) => (lookedUp = resolve));
    lateCharge = { held: false, lookedUp, released };
    refuseAfterFirst = { seen: 0, upTo: CHARGE_ATTEMPTS };
    const first = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect([first.status, first.body.decline_reason]).toEqual([422, 'processing_error']);
    refuseAfterFirst = null;
    const second = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect([second.status, second.body.status]).toEqual([200, 'succeeded']);

    const handle = temporal.workflow.getHandle(checkoutWorkflowId(c.id));
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    // The late capture was found and given back; the buyer paid once.
    expect(await ledgerOf(orm, c.id)).toEqual({ captures: 2, captured: 5_000, refunds: 1, refunded: 2_500 });
    expect(await orm.em.getConnection().execute('select amount from sales where checkout_id = ?', [c.id])).toEqual([
      { amount: '2500' },
    ]);
    expect((await handle.describe()).searchAttributes.PaymentIssue).toEqual(['late_payment_undone']);
  }, 120_000);

  it('a payment notice that beats the pix answer is kept, and the checkout completes on it', async () => {
    const c = await makeCheckout({ amount: 1_990 });
    faults.dropAnswerNext(CHARGE_ATTEMPTS, 'createTransaction');
    faults.delayNextMs(1_500, 'findTransactions');
    const confirmation = confirm(c, { payment_method: 'pix', customer_name: 'Bruno Lima' });
    // The buyer pays the moment the gateway has made the pix, before the workflow has heard of it.
    const issued = await waitFor(
      async () =>
        (
          await orm.em
            .getConnection()
            .execute<{ id: string }[]>('select id from gateway_sim.transactions where reference = ?', [c.id])
        )[0],
      { what: 'the gateway to make the pix', timeoutMs: 20_000, intervalMs: 10 },
    );
    await simulator.pay(issued.id);
    await simulator.settleCallbacks();
    const res = await confirmation;
    expect(res.status).toBe(200);
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded', 20_000);
    expect(await ledgerOf(orm, c.id)).toMatchObject({ captures: 1, captured: 1_990 });
    await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).result();
  });

  it('a Pix Automático checkout’s mandate whose answer is lost is found under its key: one mandate, shown', async () => {
    const c = await makeCheckout({ amount: 3_990, recurring: 'month', recurrenceBilling: 'pix_automatico' });
    faults.dropAnswerNext(CHARGE_ATTEMPTS, 'createMandate');
    const res = await confirm(c, { payment_method: 'pix', customer_name: 'Ana Souza', customer_tax_id: '52998224725' });
    expect([res.status, res.body.status]).toEqual([200, 'confirmed']);
    const made = await orm.em
      .getConnection()
      .execute<{ id: string }[]>('select id from gateway_sim.mandates where reference = ?', [c.id]);
    expect(made).toHaveLength(1);
    expect(res.body.gateway_payment_data.pix_automatico.mandate_id).toBe(made[0]!.id);
    expect(res.body.gateway_payment_data.pix.qr_code).toContain(made[0]!.id);
  });

  it('a pre-authorization whose capture the gateway refuses is voided, and the buyer is told it was declined', async () => {
    const c = await makeCheckout({ amount: 8_800 });
    faults.failNext(1, 422, 'captureTransaction');
    const res = await confirm(c, {
      payment_method: 'credit_card',
      card: { ...card(), number: '4000000000003220' },
    });
    expect([res.status, res.body.code]).toEqual([422, 'payment_declined']);
    expect((await checkoutRow(api.orm, c.id)).status).toBe('open');
    const [held] = await orm.em
      .getConnection()
      .execute<{ status: string }[]>('select status from gateway_sim.transactions where reference = ?', [c.id]);
    expect(held!.status).toBe('canceled');
    expect(await ledgerOf(orm, c.id)).toMatchObject({ captures: 0 });
  });
});

describe('a charge whose answer is lost while the gateway’s search lags (decision 0080)', () => {
  it('is asked about until the search shows it: one payment, one sale, the buyer never charged under a new key', async () => {
    const c = await makeCheckout({ amount: 7_300 });
    // Every quick try of the charge reaches the simulator (the first charges) and loses its answer (aimed
    // at the charge: the card's tokenization goes through); its lookup by key does not show the charge
    // for 5 s, as Mercado Pago's search lags a new payment.
    faults.dropAnswerNext(CHARGE_ATTEMPTS, 'createTransaction');
    simulator.faults.searchLagMs = 5_000;
    const first = await confirm(c, { payment_method: 'credit_card', card: card() });
    // The buyer, told anything but paid, tries again: that try must charge nothing.
    const second = await confirm(c, { payment_method: 'credit_card', card: card() });
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded', 60_000);
    expect(await ledgerOf(orm, c.id)).toMatchObject({ captures: 1, captured: 7_300, refunds: 0 });
    expect([first.status, first.body.status, first.body.decline_reason]).toEqual([200, 'confirmed', null]);
    expect([second.status, second.body.code]).toEqual([409, 'checkout_not_open']);
    expect(await orm.em.getConnection().execute('select amount from sales where checkout_id = ?', [c.id])).toEqual([
      { amount: '7300' },
    ]);
    const handle = temporal.workflow.getHandle(checkoutWorkflowId(c.id));
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    // The lookup was retried on the lag's answer until it found the charge.
    const events = (await handle.fetchHistory()).events ?? [];
    const lookups = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'findPayment');
    const retried = events.filter(
      (e) =>
        (e.activityTaskStartedEventAttributes?.attempt ?? 0) > 1 &&
        e.activityTaskStartedEventAttributes?.lastFailure?.message?.includes('search_may_lag'),
    );
    expect(lookups.length).toBeGreaterThanOrEqual(1);
    expect(retried.length).toBeGreaterThanOrEqual(1);
    expect(events.some((e) => e.activityTaskCompletedEventAttributes)).toBe(true);
  }, 90_000);
});
