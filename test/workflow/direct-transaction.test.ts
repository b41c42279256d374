import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import path from 'node:path';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { directTransactionKey } from '../../activities/direct-transactions.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { temporalTestServerPath } from '../../scripts/tool-paths.ts';
import { directTransactionWorkflow } from '../../workflows/direct-transaction.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { TEST_TIME_SKIPPING_DATABASE_URL } from '../helpers/env.ts';
import { recordHistory as saveHistory } from '../helpers/histories.ts';
import {
  directTransactionWorkflowId,
  GATEWAY_UNAVAILABLE,
  type DirectTransactionInput,
} from '../../contracts/direct-transaction.ts';

/**
 * The direct-transaction workflow on the time-skipping test server, with its real activities on the
 * test database and a simulated gateway of this file, whose answers the tests lose or refuse.
 */
const TASK_QUEUE = 'direct-transaction-workflow-test';
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath()! } },
  });
  bundle = await bundleWorkflowCode({
    workflowsPath: path.resolve(import.meta.dirname, '../../workflows/direct-transaction.ts'),
  });
  orm = await openOrm(TEST_TIME_SKIPPING_DATABASE_URL, 4);
  sim = new SimulatedGateway(orm);
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: bundle,
    activities: createActivities({ orm, gateway: sim }),
  });
  running = worker.run();
}, 120_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await orm?.close();
  await env?.teardown();
});

const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);

async function cardInput(overrides: Partial<DirectTransactionInput> = {}): Promise<DirectTransactionInput> {
  const org = await makeOrganization(orm);
  const idempotencyKey = uuidv7();
  // The route's part: the card is tokenized before the workflow starts.
  const token = await sim.tokenizeCard(
    { number: '4111111111111111', holderName: 'ANA SOUZA', expirationMonth: '12', expirationYear: '2031', cvv: '123' },
    `test:${idempotencyKey}:card`,
  );
  return {
    organizationId: org.id,
    idempotencyKey,
    paymentType: 'credit',
    amount: 4200,
    installments: 1,
    cardToken: token.id,
    gatewayBuyerId: null,
    customerEmail: 'ana@example.com',
    customerTaxId: null,
    ...overrides,
  };
}

const run = (input: DirectTransactionInput) =>
  env.client.workflow.execute(directTransactionWorkflow, {
    workflowId: directTransactionWorkflowId(input.organizationId, input.idempotencyKey),
    taskQueue: TASK_QUEUE,
    args: [input],
  });

/** What the gateway and our books hold for the request's key. */
async function booksOf(input: DirectTransactionInput) {
  const key = directTransactionKey(input.organizationId, input.idempotencyKey);
  const gateway = await sql(`select id from gateway_sim.transactions where reference = ?`, [key]);
  const captures = await sql(
    `select l.amount::int as amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
     where t.reference = ? and l.kind = 'capture'`,
    [key],
  );
  const ours = await sql(
    `select organization_id, gateway_transaction_id, status, amount::int as amount, checkout_id, card->>'last4' as last4
     from transactions where organization_id = ?`,
    [input.organizationId],
  );
  return { gateway: gateway.map((g) => g.id as string), captures, ours };
}

/** The run's activities and timers, in order, from its history. */
async function pathOf(input: DirectTransactionInput) {
  const { events } = await env.client.workflow
    .getHandle(directTransactionWorkflowId(input.organizationId, input.idempotencyKey))
    .fetchHistory();
  const { EventType, RetryState } = proto.temporal.api.enums.v1;
  const names = new Map<number, string>();
  const steps: string[] = [];
  for (const e of events ?? []) {
    if (e.activityTaskScheduledEventAttributes) {
      names.set(Number(e.eventId), e.activityTaskScheduledEventAttributes.activityType!.name!);
    }
    const ended = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (ended) {
      const retryState = e.activityTaskFailedEventAttributes?.retryState;
      steps.push(
        `${names.get(Number(ended.scheduledEventId))} ${e.activityTaskCompletedEventAttributes ? 'completed' : 'failed'}` +
          (retryState ? ` (${RetryState[retryState]})` : ''),
      );
    }
    if (EventType[e.eventType!] === 'EVENT_TYPE_TIMER_STARTED') steps.push('timer');
  }
  return steps;
}

describe('directTransactionWorkflow', () => {
  it('charges the card by its token and records the transaction', async () => {
    const input = await cardInput();
    const result = await run(input);
    expect(result).toMatchObject({
      outcome: 'charged',
      payment: { status: 'succeeded', amount: 4200, card: { last4: '1111' } },
    });
    const payment = result.outcome === 'charged' ? result.payment : null;
    expect(await pathOf(input)).toEqual(['chargeDirectTransaction completed', 'recordDirectTransaction completed']);
    expect(await booksOf(input)).toEqual({
      gateway: [payment!.id],
      captures: [{ amount: 4200 }],
      ours: [
        {
          organization_id: input.organizationId,
          gateway_transaction_id: payment!.id,
          status: 'succeeded',
          amount: 4200,
          checkout_id: null,
          last4: '1111',
        },
      ],
    });
    await recordHistory('direct-transaction-card', input);
  });

  it('issues a pix and records it pending', async () => {
    const input = await cardInput({ paymentType: 'pix', cardToken: null, amount: 1990 });
    const result = await run(input);
    expect(result).toMatchObject({ outcome: 'charged', payment: { status: 'pending', paymentType: 'pix' } });
    expect((await booksOf(input)).ours).toMatchObject([{ status: 'pending', amount: 1990, last4: null }]);
  });

  it('a charge whose answers were all lost is found by its key, recorded, and answered', async () => {
    const input = await cardInput();
    // Every quick try reaches the gateway (the first one charges) and loses its answer.
    sim.faults.loseAnswerNext = 3;
    const result = await run(input);
    expect(sim.faults.loseAnswerNext).toBe(0);
    expect(await pathOf(input)).toEqual([
      'chargeDirectTransaction failed (RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED)',
      'timer',
      'findDirectTransaction completed',
      'recordDirectTransaction completed',
    ]);
    expect(result).toMatchObject({ outcome: 'charged', payment: { status: 'succeeded', amount: 4200 } });
    const books = await booksOf(input);
    expect(books.captures).toEqual([{ amount: 4200 }]);
    expect(books.ours).toMatchObject([{ gateway_transaction_id: books.gateway[0], status: 'succeeded' }]);
  });

  it('a charge the gateway never took fails the run as GatewayUnavailable, recording nothing', async () => {
    const input = await cardInput();
    sim.faults.failNext = 3;
    const failure = await run(input).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(GATEWAY_UNAVAILABLE);
    expect(await pathOf(input)).toEqual([
      'chargeDirectTransaction failed (RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED)',
      'timer',
      'findDirectTransaction completed',
    ]);
    expect(await booksOf(input)).toEqual({ gateway: [], captures: [], ours: [] });
  });

  it('answers a definite refusal as refused, at once, recording nothing', async () => {
    const input = await cardInput({ cardToken: 'card_unknown' });
    const result = await run(input);
    expect(result).toEqual({ outcome: 'refused', reason: 'Unknown card token card_unknown' });
    expect(await pathOf(input)).toEqual(['chargeDirectTransaction failed (RETRY_STATE_NON_RETRYABLE_FAILURE)']);
    expect((await booksOf(input)).ours).toEqual([]);
  });
});

/** With RECORD_HISTORIES=1 the finished workflow's history is saved for the replay test. */
async function recordHistory(name: string, input: DirectTransactionInput) {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await saveHistory(env.client, name, directTransactionWorkflowId(input.organizationId, input.idempotencyKey));
}
