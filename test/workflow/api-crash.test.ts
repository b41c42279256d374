import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { openOrm, type Orm } from '../../db/orm.ts';
import type { ApiResponse } from '../helpers/api.ts';
import {
  APPROVED_CARD_CONFIRMATION,
  booksOf,
  makeCardCheckouts,
  paidOnce,
  progressOf,
  sqlOf,
  type CardCheckout,
  type CheckoutBooks,
  type Progress,
  type Sql,
} from '../helpers/checkout-books.ts';
import { checkoutGates, type CheckoutGates } from '../helpers/checkout-gates.ts';
import { checkoutOutcomes } from '../helpers/checkout-workflows.ts';
import { TEST_DATABASE_URL, TEST_TEMPORAL_ADDRESS } from '../helpers/env.ts';
import {
  killNow,
  startApiProcess,
  startWorkerProcess,
  stopProcess,
  waitFor,
  type ApiProcess,
} from '../helpers/processes.ts';

/**
 * The API process is killed (SIGKILL) in the middle of 50 buyers' confirm-sdk requests, at the moment
 * a crash hurts most: some requests have their card tokenized at the gateway but have not sent their
 * Update yet, many Updates are accepted, their card captured, and their answer not yet given (the
 * recording is held). A new API process is started on the same port and every buyer who got no answer
 * tries again, as a buyer's page would: a checkout already paid (or being paid) answers 409 and stays
 * paid, one whose confirmation never reached its workflow is confirmed now. Every checkout ends
 * succeeded, captured exactly once and recorded exactly once.
 *
 * This run has a task queue of its own, served by a worker process of its own, and the API runs as a
 * real process (api/server.ts) that the test kills. The moments are made to last by gates (triggers
 * scoped to this test's organization, see checkoutGates); the test waits for them in the database.
 */
const QUEUE = 'billing-test-api-crash';
const CHECKOUTS = 50;
/** Buyers whose card is tokenized, and whose Update is not yet sent, when the API dies. */
const TOKENIZED = 10;
/** Connections enough for the held statements (each keeps one) and everything else. */
// Requests wait for their outcome longer than the moment takes to reach on a loaded machine, so
// that nothing is answered before the kill.
const ENV = { TEMPORAL_TASK_QUEUE: QUEUE, DATABASE_POOL_MAX: '30', CHECKOUT_CONFIRM_WAIT_MS: '60000' };

let orm: Orm;
let sql: Sql;
let temporal: Client;
let worker: ChildProcess | null = null;
let api: ApiProcess | null = null;
let gates: CheckoutGates | null = null;

beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 4);
  sql = sqlOf(orm);
  temporal = new Client({ connection: await Connection.connect({ address: TEST_TEMPORAL_ADDRESS }) });
  worker = await startWorkerProcess(ENV);
  api = await startApiProcess(ENV);
});

afterAll(async () => {
  if (api) await stopProcess(api.child);
  if (worker) await stopProcess(worker);
  await gates?.remove();
  await temporal?.connection.close();
  await orm?.close();
});

/** Polls the organization's books until `moment` holds; returns them as they stood then. */
async function books(organizationId: string, what: string, moment: (p: Progress) => boolean): Promise<Progress> {
  let last: Progress | null = null;
  return waitFor(async () => moment((last = await progressOf(sql, organizationId))) && last, {
    what,
    timeoutMs: 60_000,
    intervalMs: 20,
    describe: () => JSON.stringify(last),
  });
}

/** One buyer's confirmation; a request that got no answer (the API died under it) is status 0. */
const confirm = (c: CardCheckout): Promise<ApiResponse> =>
  api!
    .call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, { body: APPROVED_CARD_CONFIRMATION })
    .catch((err: Error) => ({ status: 0, headers: {}, body: err.message }));

interface Run {
  checkouts: CardCheckout[];
  /** The books right after the kill, and the checkouts captured by then. */
  atCrash: Progress;
  capturedAtCrash: Set<string>;
  /** Each buyer's first request, and the retry of those that got no answer. */
  first: ApiResponse[];
  retried: (ApiResponse | null)[];
  outcomes: Record<string, string>;
  ledger: CheckoutBooks[];
}

async function crashScenario(): Promise<Run> {
  const started = Date.now();
  const { organizationId, checkouts } = await makeCardCheckouts(orm, (...args) => api!.call(...args), CHECKOUTS);
  const ids = checkouts.map((c) => c.id);
  gates = await checkoutGates(TEST_DATABASE_URL, organizationId, {
    recordingDelaySeconds: 0.2,
    only: { tokenizations: ids.slice(0, TOKENIZED) },
  });
  await gates.tokenizations.close();
  await gates.recordings.close();

  const firstAnswers = checkouts.map(confirm);
  await books(
    organizationId,
    'cards tokenized whose Update is not sent, and Updates accepted and captured whose answer is held',
    (p) => p.held.tokenizations === TOKENIZED && p.held.recordings >= 10,
  );
  await killNow(api!.child);
  const atCrash = await progressOf(sql, organizationId);
  const capturedAtCrash = new Set((await booksOf(sql, organizationId)).filter((b) => b.captures > 0).map((b) => b.id));
  const first = await Promise.all(firstAnswers);
  // What the dead API left open runs into its lost connections; the worker records what it holds.
  await gates.openAll();
  await books(organizationId, "the killed API's statements to end", (p) => p.held.tokenizations === 0);
  api = await startApiProcess(ENV, api!.port);

  // Every buyer who got no answer tries again.
  const retried = await Promise.all(checkouts.map((c, i) => (first[i]!.status === 0 ? confirm(c) : null)));
  const outcomes = await checkoutOutcomes(temporal, ids, 90_000);
  const ledger = await booksOf(sql, organizationId);
  console.log('API crash', {
    seconds: (Date.now() - started) / 1000,
    atCrash,
    first: countBy(first.map(describeAnswer)),
    retried: countBy(retried.filter((r) => r !== null).map(describeAnswer)),
  });
  return { checkouts, atCrash, capturedAtCrash, first, retried, outcomes, ledger };
}

describe('the API killed in the middle of confirm-sdk requests', () => {
  let run: Run;
  beforeAll(async () => {
    run = await crashScenario();
  }, 180_000);

  it('was killed with requests at every stage, none of them answered', () => {
    expect(run.atCrash.held.tokenizations).toBe(TOKENIZED);
    expect(run.atCrash.held.recordings).toBeGreaterThanOrEqual(10);
    expect(run.atCrash.capturedNotRecorded).toBeGreaterThanOrEqual(10);
    // Nothing could be answered before the kill (every recording was held): every request died with it.
    expect(run.first.map((r) => r.status)).toEqual(Array(CHECKOUTS).fill(0));
  });

  it('answers each retry: 409 for a checkout already paid or being paid, 200 for one never confirmed', () => {
    run.checkouts.forEach((c, i) => {
      // The buyer's last answer: the retry's, or the first request's when it was answered.
      const res = run.retried[i] ?? run.first[i]!;
      const answer = { checkout: c.id, status: res.status, body: res.body };
      const confirmed = {
        status: 200,
        body: expect.objectContaining({ status: expect.stringMatching(/^(succeeded|confirmed)$/) }),
      };
      const notOpen = { status: 409, body: expect.objectContaining({ code: 'checkout_not_open' }) };
      const busy = { status: 409, body: expect.objectContaining({ code: 'confirmation_in_progress' }) };
      if (i < TOKENIZED) {
        // Its Update never reached the workflow: the retry confirms it.
        expect(answer).toEqual({ ...answer, ...confirmed });
      } else if (run.capturedAtCrash.has(c.id)) {
        // Captured before the crash: paid (or being recorded) when its buyer came back.
        expect(answer).toEqual({ ...answer, ...notOpen });
      } else {
        // Anywhere in between: confirmed now, or told it is no longer open. Never a 5xx or a decline.
        expect([confirmed, notOpen, busy].map((shape) => ({ ...answer, ...shape }))).toContainEqual(answer);
      }
    });
  });

  it('captures every checkout exactly once and records it exactly once', () => {
    const { checkouts, ledger } = run;
    expect(run.outcomes).toEqual(Object.fromEntries(checkouts.map((c) => [c.id, 'succeeded'])));
    expect(Object.fromEntries(ledger.map((b) => [b.id, b]))).toEqual(
      Object.fromEntries(checkouts.map((c) => [c.id, paidOnce(c)])),
    );
    const sum = (pick: (b: CheckoutBooks) => number) => ledger.reduce((total, b) => total + pick(b), 0);
    expect(sum((b) => b.saleAmount)).toBe(sum((b) => b.capturedAmount));
    expect(sum((b) => b.capturedAmount)).toBe(checkouts.reduce((total, c) => total + c.amount, 0));
  });
});

const describeAnswer = (r: ApiResponse) => `${r.status} ${r.body?.status ?? r.body?.code ?? ''}`;

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
