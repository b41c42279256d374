import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { startApi, type TestApi } from '../helpers/api.ts';
import { sqlOf, type Sql } from '../helpers/checkout-books.ts';
import { waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { TEST_DATABASE_URL, TEST_TEMPORAL_ADDRESS } from '../helpers/env.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import {
  mandateBooksOf,
  mandateProgressOf,
  mandateTraces,
  type MandateBooks,
  type MandateProgress,
  type MandateTraces,
} from '../helpers/mandate-books.ts';
import { mandateGates, type MandateGates } from '../helpers/mandate-gates.ts';
import { killNow, startWorkerProcess, stopProcess, waitFor } from '../helpers/processes.ts';
import {
  subscriptionStateQuery,
  subscriptionWorkflowId,
  type SubscriptionRunState,
} from '../../contracts/subscription.ts';

/**
 * The worker that runs Pix Automático subscriptions (decision 0096) is killed (SIGKILL: no drain) twice
 * while six of them charge their second period through their mandates at once (their sandbox test
 * clocks moved two days past the period's end), and a replacement is started each time:
 *
 * 1. while each cycle's charge is being sent, after the payer's bank (the gateway) has created it: for
 *    half, before the sendMandateCharge activity wrote anything of ours; for the other half, with our
 *    mandate_charges row being inserted in an open transaction;
 * 2. in the settlement: for half, while readMandateCharge writes the charge settled (the gateway has
 *    it paid); for the other half, while the paid period's sale is being recorded.
 *
 * Afterwards the gateway's books and ours must agree: one charge (cobr) per subscription and cycle at
 * the payer's bank, for its exact amount and paid once; one mandate_charges row naming it; the period
 * recorded once (one sale, one transaction, for the same amount); each charge's events written once.
 *
 * The moments are made to last by gates (triggers scoped to this test's organization, see
 * mandate-gates.ts); the test waits for them in the database, never on a clock. This run has a task
 * queue of its own, served by one worker process of its own, so the harness's shared worker never runs
 * these workflows.
 */
const QUEUE = 'billing-test-pix-automatico-kill';
/** Each subscription's monthly price, in cents. */
const AMOUNTS = [3_990, 990, 12_345, 4_500, 19_900, 2_590];
/** Held at the first gate of each kill (the other half at the second). */
const HALF = AMOUNTS.length / 2;
/** Each held statement keeps a connection, and a held activity one of the batch queue's slots (half of it). */
const WORKER_ENV = { TEMPORAL_TASK_QUEUE: QUEUE, DATABASE_POOL_MAX: '16' };
/** What the paid cycle adds to the outbox for the subscription. */
const CYCLE_EVENTS = { 'mandate.charge_created': 1, 'mandate.charge_paid': 1, 'sale.created': 1, 'sale.paid': 1 };

let api: TestApi;
let temporal: Client;
let worker: ChildProcess | null = null;
let sql: Sql;
let booksOrm: Orm | null = null;
let gates: MandateGates | null = null;
const workflowIds: string[] = [];

beforeAll(async () => {
  api = await startApi({ TEMPORAL_TASK_QUEUE: QUEUE });
  // The sandbox's payments of the checkouts' pix reach this API, which tells their workflows.
  (api.gateway as SimulatedGateway).callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
  booksOrm = await openOrm(TEST_DATABASE_URL, 4);
  sql = sqlOf(booksOrm);
  temporal = new Client({ connection: await Connection.connect({ address: TEST_TEMPORAL_ADDRESS }) });
  worker = await startWorkerProcess(WORKER_ENV);
});

afterAll(async () => {
  // Each waits for its next cycle a month away, on a queue nobody polls once this worker stops.
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

interface Charging {
  id: string;
  amount: number;
  periodEnd: Date;
  /** The run of period 1, which charges period 2 and continues as new. */
  runId: string;
}

type Tenant = Awaited<ReturnType<typeof makeTenant>>;

/**
 * A subscription sold by a Pix Automático checkout (journey 3) whose QR code the buyer's bank paid: its
 * mandate approved and adopted, its workflow ready in period 1.
 */
async function pixAutomaticoSubscription(tenant: Tenant, amount: number): Promise<Charging> {
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: 'Clube do livro',
      prices: [{ currency: 'brl', type: 'recurring', interval: 'month', unit_amount: amount }],
    },
  });
  expect(product.status).toBe(201);
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: {
      product_id: product.body.id,
      customer_email: `ana-${amount}@example.com`,
      recurrence_billing: 'pix_automatico',
    },
  });
  expect([created.status, created.body.code]).toEqual([201, undefined]);
  const confirmed = await api.call('POST', `/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
    body: { payment_method: 'pix', customer_name: 'Ana Souza', customer_tax_id: '52998224725' },
  });
  expect([confirmed.status, confirmed.body.status]).toEqual([200, 'confirmed']);
  const paid = await api.call(
    'POST',
    `/api/v1/sandbox/transactions/${confirmed.body.gateway_payment_data.transaction_id}/pay`,
  );
  expect(paid.body.status).toBe('succeeded');
  await waitForCheckoutStatus(api.orm, created.body.id, 'succeeded', 30_000);
  const [row] = await sql('select id, current_period_end from subscriptions where checkout_id = ?', [created.body.id]);
  const handle = temporal.workflow.getHandle(subscriptionWorkflowId(row.id));
  workflowIds.push(handle.workflowId);
  await waitFor(
    async () => (await sql(`select 1 from mandates where subscription_id = ? and status = 'approved'`, [row.id]))[0],
    { what: `subscription ${row.id} to adopt its approved mandate`, timeoutMs: 30_000 },
  );
  const state = await waitFor(
    () =>
      handle.query(subscriptionStateQuery).then(
        (s) => s.periodNumber !== undefined && s,
        () => null,
      ),
    { what: `the workflow of subscription ${row.id} to run`, timeoutMs: 30_000 },
  );
  expect(state).toMatchObject({ status: 'active', periodNumber: 1 });
  return { id: row.id, amount, periodEnd: new Date(row.current_period_end), runId: (await handle.describe()).runId };
}

/** Polls the organization's books until `moment` holds; returns them as they stood then. */
async function books(
  organizationId: string,
  what: string,
  moment: (p: MandateProgress) => boolean,
): Promise<MandateProgress> {
  let last: MandateProgress | null = null;
  return waitFor(async () => moment((last = await mandateProgressOf(sql, organizationId))) && last, {
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
async function crashWorker(organizationId: string, beforeRestart?: () => Promise<void>): Promise<MandateProgress> {
  await killNow(worker!);
  worker = null;
  const atCrash = await mandateProgressOf(sql, organizationId);
  await gates!.openAll();
  await books(
    organizationId,
    "the killed worker's statements to end",
    (p) => p.inFlight === 0 && Object.values(p.held).every((n) => n === 0),
  );
  await beforeRestart?.();
  worker = await startWorkerProcess(WORKER_ENV);
  return atCrash;
}

/** Waits until every workflow has left period 1 one way or the other (paid: period 2); their states then. */
async function chargedStates(subscriptions: Charging[]): Promise<SubscriptionRunState[]> {
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
      return last.every((s) => s.periodNumber === 2 || (s.periodNumber === 1 && s.status !== 'active')) && last;
    },
    {
      what: 'every subscription workflow to be done with period 2’s charge',
      timeoutMs: 150_000,
      intervalMs: 250,
      describe: () => JSON.stringify(last.map((s) => [s.status, s.periodNumber])),
    },
  );
}

interface Run {
  subscriptions: Charging[];
  first: MandateProgress;
  second: MandateProgress;
  states: SubscriptionRunState[];
  before: MandateBooks[];
  after: MandateBooks[];
  traces: MandateTraces;
}

async function crashScenario(): Promise<Run> {
  const started = Date.now();
  const tenant = await makeTenant(api.orm);
  const organizationId = tenant.org.id;
  const subscriptions: Charging[] = [];
  for (const amount of AMOUNTS) subscriptions.push(await pixAutomaticoSubscription(tenant, amount));
  const before = await mandateBooksOf(sql, organizationId);
  const [a, b] = [subscriptions.slice(0, HALF).map((s) => s.id), subscriptions.slice(HALF).map((s) => s.id)];
  gates = await mandateGates(TEST_DATABASE_URL, organizationId, {
    sends: a,
    charges: b,
    settlements: a,
    recordings: b,
  });
  const setUp = Date.now();

  // 1. Every clock moves two days past the period's end: each charge goes out on its send day and
  //    stops after the gateway created it, before or while we write it.
  await gates.sends.close();
  await gates.charges.close();
  await Promise.all(
    subscriptions.map(async (s) => {
      const to = new Date(s.periodEnd.getTime() + 2 * 86_400_000).toISOString();
      const res = await api.call('POST', `/api/v1/subscriptions/${s.id}/test-clock/advance`, {
        body: { to },
        token: tenant.oat,
      });
      if (res.status !== 200) throw new Error(`advance answered ${res.status}: ${JSON.stringify(res.body)}`);
    }),
  );
  await books(
    organizationId,
    'every cycle charge created at the gateway, held before or while we write it',
    (p) => p.held.sends === HALF && p.held.charges === HALF,
  );
  const first = await crashWorker(organizationId, async () => {
    await gates!.settlements.close();
    await gates!.recordings.close();
  });

  // 2. The replacement sends each charge again (its activity timed out with the worker), reads it
  //    settled, and stops while writing it settled or while recording the paid period.
  await books(
    organizationId,
    'the replacement holding settlements and recordings',
    (p) => p.held.settlements === HALF && p.held.recordings === HALF,
  );
  const second = await crashWorker(organizationId);

  const states = await chargedStates(subscriptions);
  const after = await mandateBooksOf(sql, organizationId);
  const traces = await mandateTraces(
    temporal,
    subscriptions.map((s) => ({ workflowId: subscriptionWorkflowId(s.id), runId: s.runId })),
  );
  console.log('pix automatico worker kill', {
    setUpSeconds: (setUp - started) / 1000,
    crashSeconds: (Date.now() - setUp) / 1000,
    first,
    second,
    traces,
  });
  return { subscriptions, first, second, states, before, after, traces };
}

describe('the worker killed while Pix Automático cycle charges are sent and settled', () => {
  let run: Run;
  beforeAll(async () => {
    run = await crashScenario();
  }, 360_000);

  it('was killed at both moments with work in progress, which a replacement finished', () => {
    const total = AMOUNTS.length;
    // First kill: every charge made at the payer's bank, none written by us.
    expect(run.first).toMatchObject({ sent: total, recordedCharges: 0, settledCharges: 0, recorded: 0 });
    expect(run.first.held).toEqual({ sends: HALF, charges: HALF, settlements: 0, recordings: 0 });
    // Second kill: every charge written; half being written settled, half settled and being recorded.
    expect(run.second).toMatchObject({ sent: total, recordedCharges: total, settledCharges: HALF, recorded: 0 });
    expect(run.second.held).toEqual({ sends: 0, charges: 0, settlements: HALF, recordings: HALF });
    // The lost sends ran again (one attempt timed out with the worker) and so did the lost settlement
    // reads; the recordings in flight ran again in the workflow task that replaced the lost one.
    expect(run.traces.retriedActivities.sendMandateCharge).toBe(total);
    expect(run.traces.retriedActivities.readMandateCharge).toBeGreaterThanOrEqual(HALF);
    expect(run.traces.recordingsRunAgain).toBeGreaterThanOrEqual(HALF);
    expect(run.states.map((s) => [s.status, s.periodNumber])).toEqual(run.subscriptions.map(() => ['active', 2]));
  });

  it('sends each cycle’s charge once, and records it and the paid period once', () => {
    const eventsBefore = Object.fromEntries(run.before.map((b) => [b.id, b.events]));
    const added = (b: MandateBooks) =>
      Object.fromEntries(
        Object.entries(b.events)
          .map(([type, n]) => [type, n - (eventsBefore[b.id]![type] ?? 0)] as const)
          .filter(([, n]) => n !== 0),
      );
    const books = Object.fromEntries(run.after.map((b) => [b.id, { ...b, events: added(b) }]));
    expect(books).toEqual(
      Object.fromEntries(
        run.subscriptions.map((s) => [
          s.id,
          {
            id: s.id,
            status: 'active',
            periodNumber: 2,
            // One charge at the payer's bank, created once and found again by its key, paid once.
            gatewayCharges: [{ due: expect.any(String), amount: s.amount, status: 'completed', paidAttempts: 1 }],
            gatewayRuns: 1,
            gatewayReplays: expect.any(Number),
            charges: [{ period: 2, amount: s.amount, status: 'completed', sameAsGateway: true }],
            sales: 1,
            saleAmount: s.amount,
            transactions: 1,
            transactionAmount: s.amount,
            events: CYCLE_EVENTS,
          },
        ]),
      ),
    );
    // Every lost send came back to the gateway under the same key and was answered from it.
    expect(run.after.map((b) => b.gatewayReplays >= 1)).toEqual(run.subscriptions.map(() => true));
  });

  it('charges the literal amounts: R$ 443,15 in all, at the bank and in our sales', () => {
    const total = (pick: (b: MandateBooks) => number) => run.after.reduce((sum, b) => sum + pick(b), 0);
    expect(total((b) => b.gatewayCharges.reduce((sum, c) => sum + c.amount, 0))).toBe(44_315);
    expect(total((b) => b.saleAmount)).toBe(44_315);
    expect(total((b) => b.transactionAmount)).toBe(44_315);
  });
});
