import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { renewalChargeKey } from '../../domain/subscriptions.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { startApi, type TestApi } from '../helpers/api.ts';
import { sqlOf, type Sql } from '../helpers/checkout-books.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { TEST_DATABASE_URL, TEST_TEMPORAL_ADDRESS } from '../helpers/env.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { killNow, startWorkerProcess, stopProcess, waitFor } from '../helpers/processes.ts';
import {
  gatewayReplaysOf,
  renewalBooksOf,
  renewalProgressOf,
  renewalTraces,
  type RenewalBooks,
  type RenewalProgress,
  type RenewalTraces,
} from '../helpers/renewal-books.ts';
import { renewalGates, type RenewalGates } from '../helpers/renewal-gates.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';
import {
  subscriptionStateQuery,
  subscriptionWorkflowId,
  type SubscriptionRunState,
} from '../../contracts/subscription.ts';

/**
 * The worker that runs the subscription workflows is killed (SIGKILL: no drain) twice while 20
 * manual-billing card subscriptions renew at once (their test clocks moved past the period's end), at
 * the moments a crash hurts most, and a replacement is started each time:
 *
 * 1. with renewal charges the gateway has just captured whose chargeRenewal activity has not returned
 *    (no transaction of ours open: the gateway's call is outside any), while the rest of the wave
 *    waits for an activity slot of the worker and has not reached the gateway;
 * 2. in the middle of the replacement's recording (recordRenewal): some renewals just committed
 *    (perhaps not yet reported to Temporal), a few held open in PostgreSQL, others not begun.
 *
 * Afterwards the gateway's ledger and our tables must agree: every subscription captured exactly once
 * for period 2, under its renewal key and for its exact amount, and recorded exactly once (one charge
 * row, one sale, one transaction, period 2, active), with the renewal's events written once.
 *
 * The moments are made to last by gates (triggers scoped to this test's organization, see
 * renewal-gates.ts); the test waits for them in the database, never on a clock. This run has a task
 * queue of its own (the subscriptions' workflows run on its batch queue), served by one worker process
 * of its own, so the harness's shared worker never runs these workflows.
 */
const QUEUE = 'billing-test-renewal-crash';
const SUBSCRIPTIONS = 20;
const AMOUNTS = [4_990, 990, 12_345, 100, 45_000];
/**
 * A held charge keeps a connection of the embedded simulator's pool (its trace) and one of the batch
 * queue's activity slots, half the pool (worker/worker.ts): the slots running out is what stops the wave
 * of charges part of the way, and what stops the recordings past the ones held.
 */
const POOL = 16;
const HELD = 6;
/** Subscriptions whose recording is held open at the second kill (few: each keeps a connection). */
const HELD_RECORDINGS = 4;
const WORKER_ENV = { TEMPORAL_TASK_QUEUE: QUEUE, DATABASE_POOL_MAX: String(POOL) };
/** What a renewal adds to the outbox: its sale, and the subscription (active still) in its new period. */
const RENEWAL_EVENTS = { 'sale.created': 1, 'sale.paid': 1, 'subscription.updated': 1 };

let api: TestApi;
let temporal: Client;
let worker: ChildProcess | null = null;
let sql: Sql;
let booksOrm: Orm | null = null;
let gates: RenewalGates | null = null;
const workflowIds: string[] = [];

beforeAll(async () => {
  api = await startApi({ TEMPORAL_TASK_QUEUE: QUEUE });
  // The books are read on a pool of their own: the API's few connections are busy serving the buyers,
  // and a poll waiting behind them would time out on a loaded machine.
  booksOrm = await openOrm(TEST_DATABASE_URL, 4);
  sql = sqlOf(booksOrm);
  temporal = new Client({ connection: await Connection.connect({ address: TEST_TEMPORAL_ADDRESS }) });
  worker = await startWorkerProcess(WORKER_ENV);
});

afterAll(async () => {
  // Each waits for its next renewal a month away, on a queue nobody polls once this worker stops.
  for (const id of workflowIds) {
    await temporal?.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  }
  if (worker) await stopProcess(worker);
  await gates?.remove();
  await temporal?.connection.close();
  await (api?.gateway as SimulatedGateway | undefined)?.settleCallbacks();
  await api?.close();
  await booksOrm?.close();
});

interface Renewing {
  id: string;
  amount: number;
  periodEnd: Date;
  /** The run of period 1, which renews and continues as new. */
  runId: string;
}

/** `count` subscriptions of one new organization, paid by card through the API, their workflows ready. */
async function paidSubscriptions(count: number): Promise<{ organizationId: string; subscriptions: Renewing[] }> {
  const org = await makeOrganization(api.orm);
  const subscriptions: Renewing[] = [];
  // A few at a time: the sales are set-up, not what is under test.
  for (let start = 0; start < count; start += 5) {
    const batch = Array.from({ length: Math.min(5, count - start) }, async (_, k) => {
      const amount = AMOUNTS[(start + k) % AMOUNTS.length]!;
      const { row } = await paidSubscription(api, temporal, {
        organizationId: org.id,
        recurrenceBilling: 'manual',
        amount,
        taskQueue: QUEUE,
      });
      if (!row) throw new Error('the checkout answered before its sale was recorded');
      return { id: row.id as string, amount, periodEnd: new Date(row.current_period_end) };
    });
    for (const s of await Promise.all(batch)) {
      const handle = temporal.workflow.getHandle(subscriptionWorkflowId(s.id));
      workflowIds.push(handle.workflowId);
      // Started by the checkout's workflow once its sale was recorded: ready once it has read the subscription.
      const state = await waitFor(
        () =>
          handle.query(subscriptionStateQuery).then(
            (s) => s.periodNumber !== undefined && s,
            () => null,
          ),
        {
          what: `the workflow of subscription ${s.id} to run`,
          timeoutMs: 30_000,
        },
      );
      expect(state).toMatchObject({ status: 'active', periodNumber: 1 });
      subscriptions.push({ ...s, runId: (await handle.describe()).runId });
    }
  }
  return { organizationId: org.id, subscriptions };
}

/** Polls the organization's books until `moment` holds; returns them as they stood then. */
async function books(
  organizationId: string,
  what: string,
  moment: (p: RenewalProgress) => boolean,
): Promise<RenewalProgress> {
  let last: RenewalProgress | null = null;
  return waitFor(async () => moment((last = await renewalProgressOf(sql, organizationId))) && last, {
    what,
    timeoutMs: 90_000,
    intervalMs: 20,
    describe: () => JSON.stringify(last),
  });
}

/**
 * Kills the worker and opens the gates, so that what it left open in PostgreSQL runs into its lost
 * connections (a transaction rolls back); once all of that is gone, `beforeRestart` closes what the
 * next moment needs and a new worker starts. Returns the books as they stood right after the kill.
 */
async function crashWorker(organizationId: string, beforeRestart?: () => Promise<void>): Promise<RenewalProgress> {
  await killNow(worker!);
  worker = null;
  const atCrash = await renewalProgressOf(sql, organizationId);
  await gates!.openAll();
  await books(
    organizationId,
    "the killed worker's statements to end",
    (p) => p.recordingsInFlight === 0 && Object.values(p.held).every((n) => n === 0),
  );
  await beforeRestart?.();
  worker = await startWorkerProcess(WORKER_ENV);
  return atCrash;
}

/** Waits until every workflow has entered period 2 (and continued as new); their states then. */
async function renewedStates(subscriptions: Renewing[]): Promise<SubscriptionRunState[]> {
  let last: SubscriptionRunState[] = [];
  return waitFor(
    async () => {
      last = await Promise.all(
        subscriptions.map((s) =>
          temporal.workflow
            .getHandle(subscriptionWorkflowId(s.id))
            .query(subscriptionStateQuery)
            .catch(() => ({ periodNumber: -1 }) as SubscriptionRunState),
        ),
      );
      return last.every((s) => s.periodNumber === 2) && last;
    },
    {
      what: 'every subscription workflow to enter period 2',
      timeoutMs: 150_000,
      intervalMs: 250,
      describe: () => JSON.stringify(last.map((s) => [s.status, s.periodNumber])),
    },
  );
}

interface Run {
  subscriptions: Renewing[];
  before: RenewalBooks[];
  after: RenewalBooks[];
  /** The books right after each kill. */
  first: RenewalProgress;
  second: RenewalProgress;
  states: SubscriptionRunState[];
  traces: RenewalTraces;
  gatewayReplays: number;
}

async function crashScenario(): Promise<Run> {
  const started = Date.now();
  const { organizationId, subscriptions } = await paidSubscriptions(SUBSCRIPTIONS);
  const oat = await makeOat(api.orm, organizationId);
  const before = await renewalBooksOf(sql, organizationId);
  gates = await renewalGates(TEST_DATABASE_URL, organizationId, {
    recordingDelaySeconds: 0.3,
    holdRecordings: subscriptions.slice(0, HELD_RECORDINGS).map((s) => s.id),
  });
  const setUp = Date.now();

  // 1. Every clock moves an hour past the period's end: all renew at once. Their charges stop right
  //    after the gateway captured, until the worker's connections run out and the rest waits for one.
  await gates.charges.close();
  await Promise.all(
    subscriptions.map(async (s) => {
      const to = new Date(s.periodEnd.getTime() + 3_600_000).toISOString();
      const res = await api.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, {
        body: { to },
        token: oat,
      });
      if (res.status !== 200) throw new Error(`advance answered ${res.status}: ${JSON.stringify(res.body)}`);
    }),
  );
  await books(
    organizationId,
    'renewal charges captured whose activity has not returned, while others are not captured yet',
    (p) => p.held.charges >= HELD && p.captured < SUBSCRIPTIONS,
  );
  const first = await crashWorker(organizationId, () => gates!.recordings.close());

  // 2. In the middle of the recording: the replacement records with the recordings gate closed for a
  //    few subscriptions; the worker dies once those are held open and other renewals have committed
  //    (the ones just committed perhaps not yet reported to Temporal).
  await books(
    organizationId,
    'the replacement worker holding recordings open while others commit',
    (p) => p.held.recordings === HELD_RECORDINGS && p.recorded > first.recorded,
  );
  const second = await crashWorker(organizationId);

  const states = await renewedStates(subscriptions);
  const after = await renewalBooksOf(sql, organizationId);
  const traces = await renewalTraces(
    temporal,
    subscriptions.map((s) => ({ workflowId: subscriptionWorkflowId(s.id), runId: s.runId })),
  );
  const gatewayReplays = await gatewayReplaysOf(sql, organizationId);
  console.log('renewal worker crash', {
    setUpSeconds: (setUp - started) / 1000,
    crashSeconds: (Date.now() - setUp) / 1000,
    first,
    second,
    traces,
    gatewayReplays,
  });
  return { subscriptions, before, after, first, second, states, traces, gatewayReplays };
}

describe('the worker killed while subscription renewals are captured and recorded', () => {
  let run: Run;
  beforeAll(async () => {
    run = await crashScenario();
  }, 300_000);

  it('was killed at both moments with work in progress, which a replacement finished', () => {
    expect(run.first.held.charges).toBeGreaterThanOrEqual(HELD);
    expect(run.first.captured).toBeLessThan(SUBSCRIPTIONS);
    expect(run.first.recorded).toBe(0);
    expect(run.second.recorded).toBeGreaterThan(0);
    expect(run.second.held.recordings).toBe(HELD_RECORDINGS);
    // The held charges ran again and the gateway answered them from its idempotency record; the
    // recordings in flight at the second kill ran again, in the workflow task that replaced the lost one.
    expect(run.traces.retriedActivities.chargeRenewal ?? 0).toBeGreaterThanOrEqual(run.first.held.charges);
    expect(run.gatewayReplays).toBeGreaterThanOrEqual(run.first.held.charges);
    expect(run.traces.recordingsRunAgain).toBeGreaterThanOrEqual(HELD_RECORDINGS);
    expect(run.states.map((s) => [s.status, s.periodNumber])).toEqual(run.subscriptions.map(() => ['active', 2]));
  });

  it("captures every subscription's renewal exactly once and records it exactly once", () => {
    const books = Object.fromEntries(run.after.map(({ events: _, ...b }) => [b.id, b]));
    expect(books).toEqual(
      Object.fromEntries(
        run.subscriptions.map((s) => [
          s.id,
          {
            id: s.id,
            status: 'active',
            periodNumber: 2,
            gatewayTransactions: 1,
            captures: 1,
            capturedAmount: s.amount,
            captureKeys: [renewalChargeKey(s.id, 2, 1)],
            refunds: 0,
            charges: [{ period: 2, try: 1, amount: s.amount, outcome: 'succeeded', recorded: true }],
            sales: 1,
            saleAmount: s.amount,
            transactions: 1,
          },
        ]),
      ),
    );
  });

  it("writes each renewal's events once", () => {
    const before = Object.fromEntries(run.before.map((b) => [b.id, b.events]));
    const added = (b: RenewalBooks) =>
      Object.fromEntries(
        Object.entries(b.events)
          .map(([type, n]) => [type, n - (before[b.id]![type] ?? 0)] as const)
          .filter(([, n]) => n !== 0),
      );
    expect(Object.fromEntries(run.after.map((b) => [b.id, added(b)]))).toEqual(
      Object.fromEntries(run.subscriptions.map((s) => [s.id, RENEWAL_EVENTS])),
    );
  });
});
