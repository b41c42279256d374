import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { webhookWorkflowId } from '../../domain/webhooks.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { temporalTestServerPath } from '../../scripts/tool-paths.ts';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery.ts';
import { TEST_TIME_SKIPPING_DATABASE_URL } from '../helpers/env.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { recordHistory } from '../helpers/histories.ts';
import { until } from '../helpers/processes.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { testWorkers } from '../helpers/test-workers.ts';
import { attemptNowSignal } from '../../contracts/webhook-delivery.ts';

/**
 * A delivery's whole retry schedule on the time-skipping test server, with the real activities on the
 * test database and a real local receiver that verifies each delivery's signature: days pass in
 * seconds. The endpoint subscribes to another type than the event's, so the test run's own relay
 * (it watches the same database) never delivers these events itself: only this test's workflows do.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let receiver: WebhookReceiver;
let url: string;
/** The task queue of the worker `deliver` runs. */
let currentTaskQueue: string;

const workers = testWorkers();
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath()! } },
  });
  bundle = await bundleWorkflowCode({
    workflowsPath: path.resolve(import.meta.dirname, '../../workflows/webhook-delivery.ts'),
  });
  orm = await openOrm(TEST_TIME_SKIPPING_DATABASE_URL, 4);
  receiver = new WebhookReceiver();
  url = await receiver.start();
}, 120_000);
afterAll(async () => {
  await workers.stopAll();
  await receiver?.stop();
  await orm?.close();
  await env?.teardown();
});

const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);

/** An endpoint of a new organization at the receiver, and the secret it signs with. */
async function endpoint(): Promise<{ organizationId: string; endpointId: string }> {
  const org = await makeOrganization(orm);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  receiver.secrets = [secret];
  const endpointId = uuidv7();
  await sql(
    `insert into webhook_endpoints (id, organization_id, url, event_types, secret, created_at, updated_at)
     values (?, ?, ?, '{sale.paid}', ?, now(), now())`,
    [endpointId, org.id, url, secret],
  );
  return { organizationId: org.id, endpointId };
}

async function event(organizationId: string): Promise<string> {
  const id = uuidv7();
  await sql(
    `insert into events (id, organization_id, type, data, created_at) values (?, ?, 'customer.created', ?::jsonb, now())`,
    [id, organizationId, JSON.stringify({ id: uuidv7(), email: 'ana@example.com' })],
  );
  return id;
}

/** Runs the delivery workflows of `events` to the endpoint on a worker of this test, until `during` ends. */
async function deliver<T>(during: (start: (eventId: string) => Promise<() => Promise<unknown>>) => Promise<T>) {
  const taskQueue = `webhook-delivery-test-${uuidv7()}`;
  currentTaskQueue = taskQueue;
  const worker = await workers.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: createActivities({ orm, gateway: new SimulatedGateway(orm) }),
  });
  return worker.runUntil(
    during(async (eventId) => {
      const [{ organization_id: organizationId, endpoint_id: endpointId }] = await sql(
        `select e.organization_id, w.id as endpoint_id from events e join webhook_endpoints w
         on w.organization_id = e.organization_id where e.id = ?`,
        [eventId],
      );
      const handle = await env.client.workflow.start(webhookDeliveryWorkflow, {
        workflowId: webhookWorkflowId(eventId, endpointId),
        taskQueue,
        args: [{ eventId, endpointId, organizationId }],
      });
      return () => handle.result();
    }),
  );
}

const attempts = (eventId: string) =>
  sql(
    `select a.number, a.attempted_at, a.status_code, a.succeeded from webhook_attempts a
     join webhook_deliveries d on d.id = a.delivery_id where d.event_id = ? order by a.number`,
    [eventId],
  );

describe('webhook delivery over days', () => {
  it('an endpoint down for more than two days, then back, receives every event, each with its webhook-id on every attempt', async () => {
    const { organizationId, endpointId } = await endpoint();
    const events = [await event(organizationId), await event(organizationId)];
    // Down for the first nine attempts of each event (at least 60 hours, whatever the jitter), then back.
    receiver.answer = (r) => (receiver.received.filter((x) => x.id === r.id).length < 9 ? 503 : 200);
    // One after the other: the test server skips time to one run's timer while another's workflow
    // task is in flight, which then expires again and again (never so on a real server).
    const outcomes = await deliver(async (start) => {
      const results = [];
      for (const id of events) results.push(await (await start(id))());
      return results;
    });
    expect(outcomes).toEqual([{ outcome: 'succeeded' }, { outcome: 'succeeded' }]);
    await recordHistory(env.client, 'webhook-delivered-after-retries', webhookWorkflowId(events[0]!, endpointId));
    for (const id of events) {
      const got = receiver.received.filter((r) => r.body.id === id);
      expect(got.map((r) => r.id)).toEqual(Array(10).fill(id));
      expect(got.every((r) => r.verified[0])).toBe(true);
      const tried = await attempts(id);
      expect(tried.map((a) => a.succeeded)).toEqual([...Array(9).fill(false), true]);
      const span = new Date(tried[9].attempted_at).getTime() - new Date(tried[0].attempted_at).getTime();
      expect(span).toBeGreaterThan(2 * DAY);
    }
    const [row] = await sql('select enabled, failing_since from webhook_endpoints where id = ?', [endpointId]);
    expect(row).toEqual({ enabled: true, failing_since: null });
    const deliveries = await sql('select status, attempts from webhook_deliveries where endpoint_id = ?', [endpointId]);
    expect(deliveries).toEqual([
      { status: 'succeeded', attempts: 10 },
      { status: 'succeeded', attempts: 10 },
    ]);
  }, 120_000);

  it('a redelivery asked for before the first attempt is recorded is one more attempt (the signal comes first in the retried task)', async () => {
    const { organizationId, endpointId } = await endpoint();
    receiver.answer = () => 200;
    const id = await event(organizationId);
    // The signal lands with the start, as it does in the first workflow task's retry after a signal
    // came during the first attempt.
    const outcome = await deliver(async () => {
      const handle = await env.client.workflow.signalWithStart(webhookDeliveryWorkflow, {
        workflowId: webhookWorkflowId(id, endpointId),
        taskQueue: currentTaskQueue,
        args: [{ eventId: id, endpointId, organizationId }],
        signal: attemptNowSignal,
        signalArgs: ['a-redelivery'],
      });
      return handle.result();
    });
    expect(outcome).toEqual({ outcome: 'succeeded' });
    expect((await attempts(id)).map((a) => a.succeeded)).toEqual([true, true]);
    expect(receiver.received.filter((r) => r.body.id === id).map((r) => r.id)).toEqual([id, id]);
  }, 120_000);

  it('gives up after ten attempts over about three days: the delivery failed, the endpoint still enabled', async () => {
    const { organizationId, endpointId } = await endpoint();
    receiver.answer = () => 500;
    const id = await event(organizationId);
    expect(await deliver(async (start) => (await start(id))())).toEqual({ outcome: 'failed' });
    const tried = await attempts(id);
    expect(tried.map((a) => a.status_code)).toEqual(Array(10).fill(500));
    const span = new Date(tried[9].attempted_at).getTime() - new Date(tried[0].attempted_at).getTime();
    expect(span / DAY).toBeGreaterThan(2.5);
    expect(span / DAY).toBeLessThan(3.8);
    expect(
      await sql('select status, attempts, next_attempt_at from webhook_deliveries where event_id = ?', [id]),
    ).toEqual([{ status: 'failed', attempts: 10, next_attempt_at: null }]);
    const [row] = await sql('select enabled from webhook_endpoints where id = ?', [endpointId]);
    expect(row.enabled).toBe(true);
  }, 120_000);

  it('an endpoint whose every delivery has failed for five days is disabled, its owner told by an event; its deliveries stop', async () => {
    const { organizationId, endpointId } = await endpoint();
    receiver.answer = () => 500;
    // Failing for four days already (earlier events' deliveries): one more day of failures disables it.
    const now = await env.currentTimeMs();
    await sql('update webhook_endpoints set failing_since = ? where id = ?', [new Date(now - 4 * DAY), endpointId]);
    const id = await event(organizationId);
    expect(await deliver(async (start) => (await start(id))())).toEqual({ outcome: 'gone' });

    const [endpointRow] = await sql('select enabled, disabled_reason from webhook_endpoints where id = ?', [
      endpointId,
    ]);
    expect(endpointRow.enabled).toBe(false);
    // Disabled at the first failure past five days (the 8th attempt, some 25–38 hours in), then no more tries.
    expect(endpointRow.disabled_reason).toMatch(/^every delivery failed for 1[23]\d hours$/);
    const tried = await attempts(id);
    expect(tried.length).toBeLessThan(10);
    const [disabled] = await sql(
      `select data from events where organization_id = ? and type = 'webhook_endpoint.disabled'`,
      [organizationId],
    );
    expect(disabled.data).toMatchObject({ id: endpointId, url });
    expect(await sql('select status from webhook_deliveries where event_id = ?', [id])).toEqual([
      { status: 'canceled' },
    ]);
  }, 120_000);
});

describe('an attempt waiting for a slot of a hanging endpoint', () => {
  it('stops waiting when its activity is cancelled (timed out), and never posts later', async () => {
    const { organizationId, endpointId } = await endpoint();
    const activities = createActivities({ orm, gateway: new SimulatedGateway(orm) });
    const attempt = (eventId: string) => ({
      eventId,
      endpointId,
      organizationId,
      attempt: 1,
      runId: uuidv7(),
      manual: false,
      at: new Date().toISOString(),
      nextAttemptAt: null,
    });
    const hung = await Promise.all([1, 2, 3, 4].map(() => event(organizationId)));
    receiver.answer = (r) => (hung.includes(r.body.id) ? 'hang' : 200);
    // Four attempts hold the endpoint's four slots of this worker, each hanging at the receiver.
    const holding = hung.map((id) => new MockActivityEnvironment().run(activities.attemptWebhookDelivery, attempt(id)));
    await receiver.until((received) => hung.every((id) => received.some((r) => r.body.id === id)));

    // A fifth waits for a slot (its delivery row is written before the wait), then its activity is cancelled.
    const orphan = await event(organizationId);
    const waiting = new MockActivityEnvironment();
    const waited = waiting.run(activities.attemptWebhookDelivery, attempt(orphan));
    await until(
      async () => (await sql('select 1 from webhook_deliveries where event_id = ?', [orphan])).length > 0,
      10_000,
      'the fifth attempt to start',
    );
    waiting.cancel();
    await expect(waited).rejects.toThrow();

    // The slots free: a later attempt goes out, and the cancelled one never did (it would have gone first).
    receiver.releaseHanging();
    await Promise.allSettled(holding);
    const later = await event(organizationId);
    await new MockActivityEnvironment().run(activities.attemptWebhookDelivery, attempt(later));
    await receiver.until((received) => received.some((r) => r.body.id === later));
    expect(receiver.received.filter((r) => r.body.id === orphan)).toEqual([]);
  }, 60_000);
});
