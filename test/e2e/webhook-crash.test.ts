import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { migrateSimulator } from '@billing/simulated-gateway';
import { dropDatabase, migrate, openOrm, type Orm } from '../../db/orm.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/temporal-dev-server.ts';
import { TEST_DATABASE_URL, testEnv } from '../helpers/env.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import {
  closeHttpClient,
  freePort,
  spawnProcess,
  timedCall,
  waitFor,
  waitUntilReady,
  type StackProcess,
} from './stack.ts';

/**
 * The worker (which relays the outbox and delivers) is killed with SIGKILL while deliveries are in
 * flight to a merchant's server and events keep being committed; a new worker loses none of them.
 * The stack is this test's own: a database, a Temporal dev server, an API and worker processes, so no
 * other worker of the test run relays these events.
 */
jest.setTimeout(180_000);

const databaseUrl = `${TEST_DATABASE_URL}_webhook_crash`;
let temporal: TemporalDevServer;
let env: NodeJS.ProcessEnv;
let api: StackProcess;
let worker: StackProcess;
let apiBase: string;
let orm: Orm;
let tenant: Awaited<ReturnType<typeof makeTenant>>;
let temporalClient: Client;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await dropDatabase(databaseUrl);
  await migrate(databaseUrl);
  await migrateSimulator(databaseUrl);
  temporal = await startTemporalDevServer({ port: await freePort(), uiPort: 0, ui: false });
  const apiPort = await freePort();
  apiBase = `https://127.0.0.1:${apiPort}`;
  env = {
    ...process.env,
    ...testEnv({
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `billing-webhook-crash-${randomBytes(4).toString('hex')}`,
      PORT: String(apiPort),
      PUBLIC_BASE_URL: apiBase,
      LOG_LEVEL: 'warn',
    }),
  };
  api = spawnProcess('api', 'api/server.ts', env);
  worker = await startWorker();
  await waitUntilReady(api, async () => (await timedCall(`${apiBase}/healthz`, { timeoutMs: 2000 })).status === 200);
  orm = await openOrm(databaseUrl, 2);
  tenant = await makeTenant(orm);
  temporalClient = new Client({ connection: await Connection.connect({ address: temporal.address }) });
});

afterAll(async () => {
  await Promise.all([api, worker].map((p) => p?.stop()));
  await temporalClient?.connection.close();
  await temporal?.stop();
  await receiver.stop();
  await orm?.close();
  await closeHttpClient();
  await dropDatabase(databaseUrl).catch(() => undefined);
});

async function startWorker(): Promise<StackProcess> {
  const started = spawnProcess('worker', 'worker/main.ts', env);
  await waitUntilReady(started, async () => started.output().includes('worker ready:'));
  return started;
}

const call = (method: string, url: string, body?: unknown) =>
  timedCall(apiBase + url, { method, headers: { authorization: `Bearer ${tenant.oat}` }, body });

/** A customer made through the API: its customer.created event is committed with it. */
async function newCustomer(): Promise<string> {
  const res = await call('POST', '/api/v1/customers/', {
    email: `crash-${randomBytes(6).toString('hex')}@example.com`,
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);

const STARTED = proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

/** Delivery runs whose attempt is an activity a worker has started. */
async function waitingAttempts(): Promise<number> {
  let started = 0;
  for await (const run of temporalClient.workflow.list({ query: `WorkflowType = 'webhookDeliveryWorkflow'` })) {
    const { raw } = await temporalClient.workflow.getHandle(run.workflowId, run.runId).describe();
    started += (raw.pendingActivities ?? []).filter((a) => a.state === STARTED).length;
  }
  return started;
}

describe('the worker killed mid-delivery', () => {
  it('loses nothing: deliveries in flight are sent again with the same webhook-id, events committed meanwhile are relayed', async () => {
    const created = await call('POST', '/api/v1/webhooks/', {
      url: await receiver.start(),
      event_types: ['customer.created'],
    });
    expect(created.status).toBe(201);
    receiver.secrets = [created.body.secret];
    // The merchant's server takes the first deliveries and never answers while the first worker lives.
    let firstWorkerAlive = true;
    receiver.answer = () => (firstWorkerAlive ? 'hang' : 200);

    // Four attempts in their runs' first workflow tasks hold the endpoint's four slots; two more wait
    // for one as regular activities (started on this worker, heartbeating).
    const before = await Promise.all(Array.from({ length: 6 }, () => newCustomer()));
    await receiver.until((r) => r.length === 4);
    await waitFor(async () => (await waitingAttempts()) === 2, 20_000, 'two attempts to wait for a slot as activities');
    process.kill(worker.pid, 'SIGKILL');
    await waitFor(async () => !worker.alive(), 10_000, 'the worker to die');
    firstWorkerAlive = false;
    // Committed while nothing relays: the outbox keeps them.
    const during = [await newCustomer(), await newCustomer()];

    worker = await startWorker();
    const customers = [...before, ...during];
    const eventIds = new Map(
      (
        await sql(
          `select id, data->>'id' as customer_id from events where type = 'customer.created' and organization_id = ?`,
          [tenant.org.id],
        )
      ).map((e) => [e.customer_id as string, e.id as string]),
    );
    expect(customers.every((c) => eventIds.has(c))).toBe(true);
    const succeeded = () => receiver.received.filter((r) => r.status === 200);
    await receiver.until((r) => new Set(r.filter((x) => x.status === 200).map((x) => x.id)).size === 8, 90_000);

    // Every event reached the merchant once, verified, under its own id; the four hung ones were sent
    // again with the same id.
    for (const customer of customers) {
      const got = receiver.received.filter((r) => r.body.data.id === customer);
      expect(got.every((r) => r.id === eventIds.get(customer) && r.verified[0])).toBe(true);
      expect(got.filter((r) => r.status === 200)).toHaveLength(1);
    }
    const hung = receiver.received.filter((r) => r.status === 0).map((r) => r.body.data.id as string);
    expect(hung).toHaveLength(4);
    expect(before).toEqual(expect.arrayContaining(hung));
    expect(succeeded()).toHaveLength(8);
    // One delivery per event, succeeded with exactly one successful attempt recorded.
    await waitFor(
      async () => (await sql(`select 1 from webhook_deliveries where status = 'succeeded'`)).length === 8,
      10_000,
      'the deliveries to be recorded',
    );
    const deliveries = await sql(
      `select d.event_id, d.status, count(*) filter (where a.succeeded)::int as successes
       from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id group by d.id order by d.event_id`,
    );
    expect(deliveries).toEqual(
      [...eventIds.values()].sort().map((id) => ({ event_id: id, status: 'succeeded', successes: 1 })),
    );
  });
});
