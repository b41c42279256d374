import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { openOrm, type Orm } from '../../db/orm.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/temporal-dev-server.ts';
import { TEST_DATABASE_URL, testEnv } from '../helpers/env.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import {
  closeHttpClient,
  freePort,
  portOpen,
  spawnProcess,
  timedCall,
  waitFor,
  waitUntilReady,
  type StackProcess,
  type TimedResponse,
} from './stack.ts';

/**
 * PostgreSQL and Temporal go away under a running stack and come back. The API, the worker and the
 * standalone gateway are real processes; they reach PostgreSQL through a TCP proxy this test cuts
 * (the machine's PostgreSQL itself is shared and never touched), and a Temporal dev server of this
 * test's own (own port, own state file), which it kills with SIGKILL and starts again.
 *
 * While a dependency is down every process stays up, and a request that needs it gets 503 with
 * Retry-After within a few seconds; what does not need it keeps working. When it is back, the same
 * processes serve again without a restart.
 */
jest.setTimeout(180_000);

/** The bound this test holds the API to: a request that needs a dead dependency answers within it. */
const ANSWER_WITHIN_MS = 5000;
/** The API's wait for a PostgreSQL connection in this test (DATABASE_CONNECT_TIMEOUT_MS). */
const CONNECT_TIMEOUT_MS = 1500;
const CARD = {
  number: '4111111111111111',
  holder_name: 'ANA SOUZA',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
  installments: 1,
};

let tmp: string;
let proxy: TcpProxy;
let temporal: TemporalDevServer;
let temporalPort: number;
let temporalDbFile: string;
let api: StackProcess;
let worker: StackProcess;
let gateway: StackProcess;
let apiBase: string;
let gatewayBase: string;
/** Straight to PostgreSQL (not through the proxy): fixtures and what the test checks. */
let orm: Orm;
let tenant: Awaited<ReturnType<typeof makeTenant>>;
let productId: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-outages-'));
  const database = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: database.hostname, port: Number(database.port || 5432) });
  const throughProxy = new URL(TEST_DATABASE_URL);
  throughProxy.port = String(proxy.port);

  temporalPort = await freePort();
  temporalDbFile = path.join(tmp, 'temporal.db');
  temporal = await startTemporal();

  const [apiPort, gatewayPort] = [await freePort(), await freePort()];
  apiBase = `https://127.0.0.1:${apiPort}`;
  gatewayBase = `http://127.0.0.1:${gatewayPort}`;
  const env = {
    ...process.env,
    ...testEnv({
      DATABASE_URL: throughProxy.toString(),
      DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `billing-outages-${randomBytes(4).toString('hex')}`,
      PORT: String(apiPort),
      PUBLIC_BASE_URL: apiBase,
      LOG_LEVEL: 'warn',
      GATEWAY_SERVER_PORT: String(gatewayPort),
    }),
  };

  worker = spawnProcess('worker', 'worker/main.ts', env);
  api = spawnProcess('api', 'api/server.ts', env);
  gateway = spawnProcess('gateway', 'packages/simulated-gateway/src/server-main.ts', env);
  await Promise.all([
    waitUntilReady(worker, async () => worker.output().includes('worker ready:')),
    waitUntilReady(api, async () => (await timedCall(`${apiBase}/healthz`, { timeoutMs: 2000 })).status === 200),
    waitUntilReady(gateway, async () => portOpen(gatewayPort)),
  ]);

  orm = await openOrm(TEST_DATABASE_URL, 2);
  tenant = await makeTenant(orm);
  const product = await call('POST', '/api/v1/products/', {
    body: { organization_id: tenant.org.id, name: 'Outage course', prices: [{ currency: 'brl', unit_amount: 9_900 }] },
  });
  expect(product.status).toBe(201);
  productId = product.body.id;
});

afterAll(async () => {
  await Promise.all([api, worker, gateway].map((p) => p?.stop()));
  await temporal?.stop();
  await proxy?.close();
  await orm?.close();
  await closeHttpClient();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function startTemporal(): Promise<TemporalDevServer> {
  return startTemporalDevServer({
    port: temporalPort,
    uiPort: 0,
    ui: false,
    // A state file, as `npm start` keeps in .data/: workflows outlive the server's restart.
    dbFile: temporalDbFile,
    logFile: path.join(tmp, 'temporal.log'),
  });
}

function call(
  method: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; auth?: 'oat' | 'api_key' | 'none' } = {},
): Promise<TimedResponse> {
  const auth = options.auth ?? 'oat';
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (auth === 'oat') headers.authorization = `Bearer ${tenant.oat}`;
  if (auth === 'api_key') headers['x-service-api-key'] = tenant.apiKey;
  return timedCall(apiBase + url, { method, headers, body: options.body });
}

const createCheckout = (email: string) =>
  call('POST', '/api/v1/checkouts/', {
    body: { product_id: productId, customer_email: email, customer_name: 'Ana Souza' },
  });

const confirmByCard = (clientSecret: string) =>
  call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, {
    auth: 'none',
    body: { payment_method: 'credit_card', card: CARD },
  });

async function checkoutStatus(id: string): Promise<string | undefined> {
  const [row] = await orm.em
    .getConnection()
    .execute<{ status: string }[]>('select status from checkouts where id = ?', [id]);
  return row?.status;
}

/** A checkout created and paid by card through the API, the worker and the gateway: the whole path works. */
async function buyOnce(email: string): Promise<void> {
  const created = await createCheckout(email);
  expect({ status: created.status, error: created.body.error }).toEqual({ status: 201, error: undefined });
  const confirmed = await confirmByCard(created.body.client_secret);
  expect({ status: confirmed.status, error: confirmed.body.error }).toEqual({ status: 200, error: undefined });
  await waitFor(async () => (await checkoutStatus(created.body.id)) === 'succeeded', 30_000, 'the checkout to succeed');
}

/**
 * The LISTEN sessions through the proxy on a channel: the API's for credential revocations
 * (`credential_changed`), the worker's outbox relay's (`billing_events`).
 */
async function listenSessionsThroughProxy(channel = 'credential_changed'): Promise<number> {
  const ports = proxy.upstreamPorts();
  if (ports.length === 0) return 0;
  const rows = await orm.em.getConnection().execute<{ n: number }[]>(
    `select count(*)::int as n from pg_stat_activity
     where datname = current_database() and query ilike ? and client_port = any(?::int[])`,
    [`listen ${channel}`, `{${ports.join(',')}}`],
  );
  return rows[0]!.n;
}

/** The answer of a dependency outage: 503, a short Retry-After, our error body, and soon. */
function expectUnavailable(res: TimedResponse, code: string) {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status: 503, code });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(30);
  expect(typeof res.body.error).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  expect(res.ms).toBeLessThan(ANSWER_WITHIN_MS);
}

function expectAllAlive() {
  for (const p of [api, worker, gateway]) p.assertAlive();
}

describe('a running stack', () => {
  it('serves before any outage', async () => {
    expect((await call('GET', '/readyz', { auth: 'none' })).body).toEqual({
      status: 'ready',
      checks: { database: 'ok', temporal: 'ok' },
    });
    expect((await call('GET', '/api/v1/products/', { auth: 'api_key' })).status).toBe(200);
    await buyOnce('before-outages@example.com');
    await waitFor(async () => (await listenSessionsThroughProxy()) === 1, 10_000, 'the API to LISTEN');
    await waitFor(
      async () => (await listenSessionsThroughProxy('billing_events')) === 1,
      10_000,
      'the relay to LISTEN',
    );
  });
});

describe('PostgreSQL goes away', () => {
  it('keeps every process up when PostgreSQL ends their sessions (as a restart does), and reconnects', async () => {
    const pids = [api.pid, worker.pid, gateway.pid];
    // Warm every pool: the processes hold idle connections, which is where an unhandled error kills.
    expect((await call('GET', '/api/v1/products/', { auth: 'api_key' })).status).toBe(200);
    expect(
      (
        await timedCall(`${gatewayBase}/v1/transactions/tx_missing`, {
          headers: { authorization: 'Bearer sim_gateway_key' },
        })
      ).status,
    ).toBe(404);
    const ports = proxy.upstreamPorts();
    // 57P01 admin_shutdown on every session of the processes under test, idle or not.
    const [terminated] = await orm.em.getConnection().execute<{ n: number }[]>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
       where datname = current_database() and client_port = any(?::int[])`,
      [`{${ports.join(',')}}`],
    );
    expect(terminated!.n).toBeGreaterThan(2);
    await waitFor(async () => (await listenSessionsThroughProxy()) === 0, 10_000, 'the LISTEN session to end');

    // A request may race the pool's noticing of a dead connection (its error event comes later on a
    // loaded machine): then it is a 503 with Retry-After, never a 500, and the next one is served.
    const first = await call('GET', '/api/v1/products/', { auth: 'api_key' });
    if (first.status !== 200) {
      expect([first.status, first.headers['retry-after'] !== undefined]).toEqual([503, true]);
    }
    await waitFor(
      async () => (await call('GET', '/api/v1/products/', { auth: 'api_key' })).status === 200,
      10_000,
      'the API to serve again',
    );
    await waitFor(async () => (await listenSessionsThroughProxy()) === 1, 20_000, 'the API to LISTEN again');
    // The worker's outbox relay listens again too (webhooks are woken at once again).
    await waitFor(
      async () => (await listenSessionsThroughProxy('billing_events')) === 1,
      20_000,
      'the relay to LISTEN again',
    );
    await buyOnce('after-sessions-terminated@example.com');
    expectAllAlive();
    expect([api.pid, worker.pid, gateway.pid]).toEqual(pids);
  });

  it('keeps every process up, answers 503 with Retry-After at once, and recovers by itself', async () => {
    const pids = [api.pid, worker.pid, gateway.pid];
    await proxy.cut('refuse');

    const reads = await Promise.all([
      call('GET', '/api/v1/products/', { auth: 'api_key' }),
      call('GET', '/api/v1/customers/'),
    ]);
    for (const res of reads) expectUnavailable(res, 'database_unavailable');
    const writes = await Promise.all([
      call('POST', '/api/v1/customers/', {
        body: { email: 'during-outage@example.com' },
        headers: { 'idempotency-key': `outage-${randomBytes(6).toString('hex')}` },
      }),
      createCheckout('during-outage@example.com'),
    ]);
    for (const res of writes) expectUnavailable(res, 'database_unavailable');

    const ready = await call('GET', '/readyz', { auth: 'none' });
    expect(ready.status).toBe(503);
    expect(ready.body.checks.database).toMatch(/^unavailable/);
    expect(ready.body.checks.temporal).toBe('ok');
    expect((await call('GET', '/healthz', { auth: 'none' })).status).toBe(200);
    // The standalone gateway answers too (its own error), rather than dying.
    const onGateway = await timedCall(`${gatewayBase}/v1/transactions/tx_missing`, {
      headers: { authorization: 'Bearer sim_gateway_key' },
    });
    expect(onGateway.status).toBeGreaterThanOrEqual(500);
    expectAllAlive();

    await proxy.restore();
    await waitFor(
      async () => (await call('GET', '/api/v1/products/', { auth: 'api_key' })).status === 200,
      20_000,
      'the API to read products again',
    );
    // The revocation listener is back on its own: credentials are cached (and revocations heard) again.
    await waitFor(async () => (await listenSessionsThroughProxy()) === 1, 20_000, 'the API to LISTEN again');
    expect(
      (
        await timedCall(`${gatewayBase}/v1/transactions/tx_missing`, {
          headers: { authorization: 'Bearer sim_gateway_key' },
        })
      ).status,
    ).toBe(404);
    await buyOnce('after-postgres-outage@example.com');
    expectAllAlive();
    expect([api.pid, worker.pid, gateway.pid]).toEqual(pids);
  });

  it('bounds the wait when PostgreSQL accepts connections but never answers', async () => {
    await proxy.cut('hang');
    const res = await call('GET', '/api/v1/products/', { auth: 'api_key' });
    // The rate-limit count and the credential lookup each wait DATABASE_CONNECT_TIMEOUT_MS at most.
    expectUnavailable(res, 'database_unavailable');
    expect(res.ms).toBeLessThan(2 * CONNECT_TIMEOUT_MS + 1500);
    expectAllAlive();

    await proxy.restore();
    await waitFor(
      async () => (await call('GET', '/api/v1/products/', { auth: 'api_key' })).status === 200,
      20_000,
      'the API to read products again',
    );
    expectAllAlive();
  });
});

describe('Temporal goes away', () => {
  it('answers 503 for what needs it, keeps reads working, and resumes after a restart', async () => {
    const pids = [api.pid, worker.pid, gateway.pid];
    // Open before the outage; its workflow must survive the server's restart.
    const open = await createCheckout('across-temporal-restart@example.com');
    expect({ status: open.status, error: open.body.error }).toEqual({ status: 201, error: undefined });

    process.kill(temporal.pid!, 'SIGKILL');
    await waitFor(async () => !(await portOpen(temporalPort)), 10_000, 'Temporal to be gone');

    expectUnavailable(await createCheckout('during-temporal-outage@example.com'), 'workflow_unavailable');
    expectUnavailable(await confirmByCard(open.body.client_secret), 'workflow_unavailable');
    // Reads need PostgreSQL only.
    expect((await call('GET', '/api/v1/products/', { auth: 'api_key' })).status).toBe(200);
    const read = await call('GET', `/api/v1/checkouts/${open.body.id}`);
    expect({ status: read.status, checkout: read.body.status }).toEqual({ status: 200, checkout: 'open' });
    const ready = await call('GET', '/readyz', { auth: 'none' });
    expect(ready.status).toBe(503);
    expect(ready.body.checks.database).toBe('ok');
    expect(ready.body.checks.temporal).toMatch(/^unavailable/);
    expectAllAlive();

    temporal = await startTemporal();
    await waitFor(
      async () => (await call('GET', '/readyz', { auth: 'none' })).status === 200,
      30_000,
      'the API to reach Temporal again',
    );
    // The workflow started before the outage is still there, and the same worker runs it.
    const confirmed = await confirmByCard(open.body.client_secret);
    expect(confirmed.status).toBe(200);
    await waitFor(async () => (await checkoutStatus(open.body.id)) === 'succeeded', 60_000, 'the checkout to succeed');
    await buyOnce('after-temporal-restart@example.com');
    expectAllAlive();
    expect([api.pid, worker.pid, gateway.pid]).toEqual(pids);
  });
});
