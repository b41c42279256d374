import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { uuidv7 } from 'uuidv7';
import { openOrm, type Orm } from '../../db/orm.ts';
import { HttpGateway } from '../../gateway/http-adapter.ts';
import { GatewayError, type CardGateway, type PixChargeInput } from '../../gateway/port.ts';
import { buildGatewayServer, GatewayFaults } from '@billing/simulated-gateway/server';
import { ENGINE_PIX_WINDOW, SimulatedGateway } from '@billing/simulated-gateway';
import { TEST_DATABASE_URL } from '../helpers/env.ts';

/**
 * The simulator as strict as Mercado Pago where issue 33 §6 found it kinder (decision 0080): its lookup
 * by key lags a new transaction (`faults.searchLagMs`, `search_lag_ms` over HTTP) without ever
 * answering "never processed" for it, and it refuses the pix Mercado Pago refuses. Embedded and over
 * the HTTP protocol (the standalone server and the engine's HTTP adapter).
 */
const API_KEY = 'gw_fidelity_key_0123456789';
let orm: Orm;
let simulator: SimulatedGateway;
let server: FastifyInstance;
let baseUrl: string;
let overHttp: HttpGateway;

beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 5);
  simulator = new SimulatedGateway(orm);
  server = buildGatewayServer({
    gateway: simulator,
    apiKey: API_KEY,
    faults: new GatewayFaults(),
    sandbox: simulator,
    simulatorFaults: simulator.faults,
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(server.server.address() as { port: number }).port}`;
  overHttp = new HttpGateway({ baseUrl, apiKey: API_KEY, timeoutMs: 5000 });
});
afterEach(() => {
  simulator.faults.searchLagMs = 0;
  simulator.now = () => new Date();
});
afterAll(async () => {
  await server.close();
  await orm.close();
});

const key = (label: string) => `test:fidelity:${label}:${uuidv7()}`;
const card = { number: '4111111111111111', holderName: 'ANA SOUZA', expirationMonth: '12', expirationYear: '2031' };
const charge = (gateway: CardGateway, k: string) =>
  gateway.chargeCard(
    {
      reference: uuidv7(),
      amount: 5_000,
      currency: 'BRL',
      installments: 1,
      noFeesInstallments: false,
      card: { ...card, cvv: '123' },
      capture: true,
    },
    k,
  );
const pixInput = (overrides: Partial<PixChargeInput> = {}): PixChargeInput => ({
  reference: uuidv7(),
  amount: 1_990,
  currency: 'BRL',
  buyer: { email: 'ana@example.com' },
  expiresInSeconds: 1800,
  ...overrides,
});

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}

async function setFaults(body: Record<string, unknown>) {
  const res = await request(`${baseUrl}/v1/_faults`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as { ok?: boolean } };
}

describe('the lookup by key lags like Mercado Pago’s payment search', () => {
  it('a transaction younger than the lag is a retryable search_may_lag, never null; found once the lag has passed', async () => {
    const k = key('lag');
    const made = await charge(simulator, k);
    simulator.faults.searchLagMs = 60_000;
    const lagging = await rejection(simulator.findTransactionByIdempotencyKey(k));
    expect(lagging).toMatchObject({ retryable: true, message: expect.stringContaining('search_may_lag') });
    // A key the gateway never saw is still "never processed": the lag hides only what exists.
    expect(await simulator.findTransactionByIdempotencyKey(key('never'))).toBeNull();
    simulator.now = () => new Date(Date.now() + 60_000);
    expect(await simulator.findTransactionByIdempotencyKey(k)).toMatchObject({ id: made.id, status: 'succeeded' });
  });

  it('over HTTP: set by POST /v1/_faults (search_lag_ms), answered 503 and retryable to the adapter', async () => {
    const k = key('lag-http');
    const made = await charge(overHttp, k);
    expect(await setFaults({ search_lag_ms: 60_000 })).toEqual({ status: 200, body: { ok: true } });
    expect(simulator.faults.searchLagMs).toBe(60_000);
    const lagging = await rejection(overHttp.findTransactionByIdempotencyKey(k));
    expect(lagging).toMatchObject({ retryable: true, status: 503, message: expect.stringContaining('search_may_lag') });
    expect(await overHttp.findTransactionByIdempotencyKey(key('never-http'))).toBeNull();
    // Faults are replaced as a whole: a call without it ends the lag.
    await setFaults({});
    expect(simulator.faults.searchLagMs).toBe(0);
    expect(await overHttp.findTransactionByIdempotencyKey(k)).toMatchObject({ id: made.id });
  });

  it('a server given no simulator faults refuses a lag it could not apply (400), changing no fault', async () => {
    const plain = buildGatewayServer({ gateway: simulator, apiKey: API_KEY, faults: new GatewayFaults() });
    try {
      const res = await plain.inject({
        method: 'POST',
        url: '/v1/_faults',
        headers: { authorization: `Bearer ${API_KEY}` },
        payload: { search_lag_ms: 1_000 },
      });
      expect([res.statusCode, res.json().error.message]).toEqual([400, 'This gateway has no search to lag']);
      expect(simulator.faults.searchLagMs).toBe(0);
    } finally {
      await plain.close();
    }
  });
});

describe('pix as Mercado Pago takes it: 30 minutes to 30 days, with the payer’s e-mail', () => {
  it.each([
    ['under 30 minutes', { expiresInSeconds: 1799 }, 'between 1800 seconds and 2592000 seconds'],
    ['over 30 days', { expiresInSeconds: 30 * 24 * 3600 + 1 }, 'between 1800 seconds and 2592000 seconds'],
    ['without a payer', { buyer: null }, "payer's e-mail"],
  ])('refuses a pix %s, for good, and makes nothing (embedded and over HTTP)', async (_, overrides, message) => {
    for (const gateway of [simulator, overHttp]) {
      const input = pixInput(overrides);
      const refused = await rejection(gateway.createPixCharge(input, key('pix-refused')));
      expect(refused).toMatchObject({ retryable: false, message: expect.stringContaining(message) });
      const made = await orm.em
        .getConnection()
        .execute('select id from gateway_sim.transactions where reference = ?', [input.reference]);
      expect(made).toEqual([]);
    }
  });

  it('issues one at the window’s edges: 30 minutes and 30 days', async () => {
    for (const expiresInSeconds of [1800, 30 * 24 * 3600]) {
      const t = await overHttp.createPixCharge(pixInput({ expiresInSeconds }), key('pix-edge'));
      expect(t).toMatchObject({ status: 'pending', paymentType: 'pix' });
      const validity = Date.parse(t.pix!.expiresAt) - Date.parse(t.createdAt);
      expect(validity).toBe(expiresInSeconds * 1000);
    }
  });

  it('the sandbox’s simulator takes the engine’s shorter pix (a checkout’s last half hour), never one without an e-mail', async () => {
    const sandbox = new SimulatedGateway(orm, {}, { pixExpiryWindow: ENGINE_PIX_WINDOW });
    const t = await sandbox.createPixCharge(pixInput({ expiresInSeconds: 60 }), key('pix-sandbox'));
    expect(t.status).toBe('pending');
    const refused = await rejection(sandbox.createPixCharge(pixInput({ buyer: null }), key('pix-sandbox')));
    expect(refused.retryable).toBe(false);
  });
});
