import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { brazilToday, invoiceWorkflowId } from '../../domain/invoices.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { SWEEP_QUERIES } from '../../activities/sweeps.ts';
import { kyselyOf, sql as kysql } from '../../db/kysely.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { APPROVED_CARD_CONFIRMATION } from '../helpers/checkout-books.ts';
import { leaveLostConfirmation, ledgerOf, makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { paidSubscription as paidSubscriptionOf } from '../helpers/subscriptions.ts';
import { until } from '../helpers/processes.ts';
import { recordHistory } from '../helpers/histories.ts';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';
import { subscriptionWorkflowId } from '../../contracts/subscription.ts';
import { SWEEP_JOB, type SweepCounts } from '../../contracts/sweep.ts';
import { scheduleIdFor } from '../../domain/task-queues.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The periodic sweep, a Temporal Schedule the real worker registers at start: triggered, it starts
 * the workflow of a live subscription, a pending extra-charge invoice or an open (or pix-pending)
 * checkout that has none (here: one an operator terminated), and leaves a running one alone. The
 * workflow started again asks the gateway before it settles anything.
 */
let api: TestApi;
let temporal: Client;
let sim: SimulatedGateway;
beforeAll(async () => {
  api = await startApi();
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

async function paidSubscription(): Promise<string> {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscriptionOf(api, temporal, { organizationId: org.id, recurrenceBilling: 'manual' });
  return row.id as string;
}

/** Describes the workflow until `done` holds (the schedule's run starts it asynchronously). */
async function describedWhen(workflowId: string, done: (d: { status: string; runId: string }) => boolean) {
  let seen: { status: string; runId: string } | undefined;
  return waitFor(
    async () => {
      const d = await temporal.workflow.getHandle(workflowId).describe();
      seen = { status: d.status.name, runId: d.runId };
      return done(seen) && seen;
    },
    {
      what: `${workflowId} to reach the state awaited`,
      timeoutMs: 30_000,
      intervalMs: 100,
      describe: () => JSON.stringify(seen),
    },
  );
}

describe('the billing sweep schedule', () => {
  it('is registered by the worker, hourly, starting the sweep workflow', async () => {
    const schedule = await temporal.schedule
      .getHandle(scheduleIdFor(SWEEP_JOB, api.config.TEMPORAL_TASK_QUEUE))
      .describe();
    expect(schedule.spec.intervals).toMatchObject([{ every: 3_600_000 }]);
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'billingSweepWorkflow' });
    expect(schedule.state.paused).toBe(false);
  });

  it('starts the workflow of a live subscription that has none, and keeps a running one', async () => {
    const [lost, kept] = [await paidSubscription(), await paidSubscription()];
    const lostHandle = temporal.workflow.getHandle(subscriptionWorkflowId(lost));
    const terminated = await describedWhen(lostHandle.workflowId, (d) => d.status === 'RUNNING');
    await lostHandle.terminate('an operator stopped it');
    const keptRun = await describedWhen(subscriptionWorkflowId(kept), (d) => d.status === 'RUNNING');

    const counts = await sweep('sweep-restarts-subscription');
    await describedWhen(lostHandle.workflowId, (d) => d.status === 'RUNNING' && d.runId !== terminated.runId);
    // The sweep's own run finished, and the running workflow was left as it was.
    expect((await describedWhen(subscriptionWorkflowId(kept), () => true)).runId).toBe(keptRun.runId);
    expect(counts.subscriptions).toBeGreaterThanOrEqual(2);
  });
});

describe('the sweep reads only live rows', () => {
  it.each([
    ['subscriptions', 'subscriptions', 'subscriptions_live_idx'],
    ['invoices', 'subscription_invoices', 'subscription_invoices_pending_idx'],
    ['checkouts', 'checkouts', 'checkouts_unsettled_idx'],
  ] as const)('pages through %s (table %s) on its partial index %s', async (name, table, index) => {
    // On a small table the planner may prefer the primary key, so the check runs on an empty copy of
    // the table (a temporary table hides the real one for this transaction) that has the migration's
    // partial index and nothing else, sequential scans discouraged: the plan takes the index only if
    // the sweep's predicate implies the index's. On the first page (no id before it) and a later one.
    for (const after of [null, '0193a6b2-0000-7000-8000-000000000000']) {
      const plan = await api.orm.em.fork().transactional(async (em) => {
        const db = kyselyOf(em);
        const run = (statement: string) => kysql.raw(statement).execute(db);
        const { rows } = await kysql<{
          indexdef: string;
        }>`select indexdef from pg_indexes where indexname = ${index}`.execute(db);
        await run(`create temporary table ${table} (like public.${table}) on commit drop`);
        await run(rows[0]!.indexdef.replace(` ON public.${table} `, ` ON pg_temp.${table} `));
        await run('set local enable_seqscan = off');
        // The very statement the sweep runs (its owner's typed page), explained.
        const explained = await SWEEP_QUERIES[name](em, { after, limit: 100 }).explain<{ 'QUERY PLAN': string }>();
        return explained.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).toContain(index);
    }
  });
});

describe('the sweep and pending extra-charge invoices', () => {
  it('an invoice unpaid past its deadline whose workflow was lost: started again, it asks the gateway and voids it', async () => {
    const s = await gatewaySubscription();
    const invoice = await pendingInvoice(s);
    const lost = await lose(invoiceWorkflowId(invoice.id));
    await lostLongAgo(invoice.id, true);

    expect((await sweep()).invoices).toBeGreaterThanOrEqual(1);
    expect(await newRunResult(invoiceWorkflowId(invoice.id), lost)).toBe('voided');
    expect(await invoiceRow(invoice.id)).toMatchObject({ status: 'voided', transaction_id: null });
    expect((await sim.getInvoice(invoice.gatewayId))!.status).toBe('voided');
  });

  it('invoices paid at the gateway while they had no workflow are recorded paid: past their deadline, and at once before it', async () => {
    const s = await gatewaySubscription();
    const [late, early] = [await pendingInvoice(s), await pendingInvoice(s)];
    const lost = [await lose(invoiceWorkflowId(late.id)), await lose(invoiceWorkflowId(early.id))];
    await sim.payInvoice(late.gatewayId);
    await sim.payInvoice(early.gatewayId);
    // Their callbacks found no workflow to tell.
    await sim.settleCallbacks();
    await lostLongAgo(late.id, true);
    await lostLongAgo(early.id, false);

    await sweep();
    expect(await newRunResult(invoiceWorkflowId(late.id), lost[0]!)).toBe('paid');
    // Its deadline is days away: only the ask of a run started again finds the payment now.
    expect(await newRunResult(invoiceWorkflowId(early.id), lost[1]!)).toBe('paid');
    for (const invoice of [late, early]) {
      expect(await invoiceRow(invoice.id)).toMatchObject({ status: 'paid', transaction_id: expect.any(String) });
      expect(await sql('select status from sales where invoice_id = ?', [invoice.id])).toEqual([{ status: 'paid' }]);
    }
  });
});

describe('the sweep and a manual subscription’s pending invoice (issue 24)', () => {
  it('started again without a gateway invoice, it charges the kept card when due, once', async () => {
    const org = await makeOrganization(api.orm);
    const { row } = await paidSubscriptionOf(api, temporal, { organizationId: org.id, recurrenceBilling: 'manual' });
    const res = await api.call('POST', `/api/v1/subscriptions/${row.id}/invoices`, {
      token: await makeOat(api.orm, org.id),
      body: { amount: 12_345, due_date: daysFromToday(3), description: 'Setup' },
    });
    expect([res.status, res.body.gateway_invoice_id]).toEqual([201, null]);
    const lost = await lose(invoiceWorkflowId(res.body.id));
    // Due today by the time the sweep finds it: the new run charges at once.
    await sql('update subscription_invoices set due_date = ? where id = ?', [daysFromToday(0), res.body.id]);

    await sweep();
    expect(await newRunResult(invoiceWorkflowId(res.body.id), lost)).toBe('paid');
    expect(await sql('select amount::int as amount from sales where invoice_id = ?', [res.body.id])).toEqual([
      { amount: 12_345 },
    ]);
  });
});

describe('the sweep and open checkouts', () => {
  it('pix checkouts whose workflow was lost, started again past their deadline, end as the gateway says; an open one expires', async () => {
    const [paid, unpaid, open] = [
      await makeCheckout(api.orm, temporal, { amount: 2_500, expiresInMs: 5_000 }),
      await makeCheckout(api.orm, temporal, { amount: 2_600, expiresInMs: 5_000 }),
      await makeCheckout(api.orm, temporal, { amount: 2_700, expiresInMs: 5_000 }),
    ];
    const pix = [await confirmPix(paid.clientSecret), await confirmPix(unpaid.clientSecret)];
    const lost = [
      await lose(checkoutWorkflowId(paid.id)),
      await lose(checkoutWorkflowId(unpaid.id)),
      await lose(checkoutWorkflowId(open.id)),
    ];
    await sim.pay(pix[0]!.transactionId);
    await sim.settleCallbacks();
    expect((await checkoutRow(paid.id)).status).toBe('confirmed');
    // Both pix deadlines (and the open checkout's expiry) pass with no workflow to see them.
    const deadline = Math.max(
      ...pix.map((p) => Date.parse(p.expiresAt)),
      new Date((await checkoutRow(open.id)).expires_at).getTime(),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(deadline - Date.now(), 0) + 1_000));

    expect((await sweep()).checkouts).toBeGreaterThanOrEqual(3);
    expect(await newRunResult(checkoutWorkflowId(paid.id), lost[0]!)).toEqual({ status: 'succeeded' });
    expect(await waitForCheckoutStatus(api.orm, paid.id, 'succeeded')).toMatchObject({ payment_method: 'pix' });
    expect(await sql('select status, payment_method from sales where checkout_id = ?', [paid.id])).toEqual([
      { status: 'paid', payment_method: 'pix' },
    ]);

    expect(await newRunResult(checkoutWorkflowId(unpaid.id), lost[1]!)).toEqual({ status: 'failed' });
    expect(await waitForCheckoutStatus(api.orm, unpaid.id, 'failed')).toMatchObject({ decline_reason: 'expired' });
    expect((await sim.getTransaction(pix[1]!.transactionId))!.status).toBe('failed');
    expect(await sql('select id from sales where checkout_id = ?', [unpaid.id])).toEqual([]);

    expect(await newRunResult(checkoutWorkflowId(open.id), lost[2]!)).toEqual({ status: 'expired' });
    expect((await checkoutRow(open.id)).status).toBe('expired');
  });
});

describe('the sweep and a card under review (decision 0070)', () => {
  it('a card whose run was lost while under review: started again, it asks the gateway at once and records the approval', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 2_800 });
    const res = await api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, {
      body: {
        payment_method: 'credit_card',
        card: {
          number: '4000000000001505', // held for review, then approved
          holder_name: 'Ana Souza',
          expiration_month: '12',
          expiration_year: '2031',
          cvv: '123',
        },
      },
    });
    expect(res.body).toMatchObject({ status: 'confirmed', gateway_payment_data: { status: 'pending' } });
    const lostRun = await lose(checkoutWorkflowId(c.id));
    // Approved while no run listens: its notice finds no workflow.
    await sim.endReview(res.body.gateway_payment_data.transaction_id);
    await sim.settleCallbacks();
    expect((await checkoutRow(c.id)).status).toBe('confirmed');

    expect((await sweep()).checkouts).toBeGreaterThanOrEqual(1);
    expect(await newRunResult(checkoutWorkflowId(c.id), lostRun)).toEqual({ status: 'succeeded' });
    expect(await sql('select status, amount::int as amount from sales where checkout_id = ?', [c.id])).toEqual([
      { status: 'paid', amount: 2_800 },
    ]);
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 2_800, refunds: 0, refunded: 0 });
  });
});

describe('the sweep and confirmations whose payment call was lost', () => {
  // A run is lost here while it waits (terminated), and what its last confirmation's workflow task
  // did is done by that task's own activities (leaveLostConfirmation): a task in flight when its run
  // is terminated still runs its local activities to the end in the worker, so terminating it mid-
  // confirmation would record the sale itself rather than leave it to the sweep.
  it('a card captured by a confirmation its lost run never recorded: the new run asks the gateway and records the sale, captured once', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 3_100 });
    const lostRun = await lose(checkoutWorkflowId(c.id));
    await leaveLostConfirmation(api.orm, sim, c.id, { charge: true });
    expect(await checkoutRow(c.id)).toMatchObject({ status: 'confirmed', gateway_payment_data: null });

    expect((await sweep()).checkouts).toBeGreaterThanOrEqual(1);
    expect(await newRunResult(checkoutWorkflowId(c.id), lostRun)).toEqual({ status: 'succeeded' });
    expect(await sql('select status, amount::int as amount from sales where checkout_id = ?', [c.id])).toEqual([
      { status: 'paid', amount: 3_100 },
    ]);
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 3_100, refunds: 0, refunded: 0 });
  });

  it('a confirmation its lost run prepared but never sent to the gateway: the checkout opens again, and the next confirmation pays', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 3_200 });
    await lose(checkoutWorkflowId(c.id));
    await leaveLostConfirmation(api.orm, sim, c.id, { charge: false });
    await waitForCheckoutStatus(api.orm, c.id, 'confirmed');

    await sweep();
    expect(await waitForCheckoutStatus(api.orm, c.id, 'open')).toMatchObject({ decline_reason: 'processing_error' });
    expect(await ledgerOf(api.orm, c.id)).toMatchObject({ captures: 0 });
    expect((await confirmCard(c.clientSecret, APPROVED)).body.status).toBe('succeeded');
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 3_200, refunds: 0, refunded: 0 });
  });

  it('a checkout declined before its run was lost is charged anew once started again, not answered the old decline', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 3_300, expiresInMs: 10 * 60_000 });
    expect((await confirmCard(c.clientSecret, DECLINED)).body).toMatchObject({ decline_reason: 'card_declined' });
    const lostRun = await lose(checkoutWorkflowId(c.id));
    await sweep();
    await describedWhen(checkoutWorkflowId(c.id), (d) => d.status === 'RUNNING' && d.runId !== lostRun);

    expect((await confirmCard(c.clientSecret, APPROVED)).body.status).toBe('succeeded');
    expect(await ledgerOf(api.orm, c.id)).toEqual({ captures: 1, captured: 3_300, refunds: 0, refunded: 0 });
  });
});

const APPROVED = APPROVED_CARD_CONFIRMATION.card.number;
const DECLINED = '4000000000000002';

/** The buyer confirms with a card (typed into confirm-sdk); the route's answer. */
function confirmCard(clientSecret: string, number: string) {
  return api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, {
    body: { ...APPROVED_CARD_CONFIRMATION, card: { ...APPROVED_CARD_CONFIRMATION.card, number } },
  });
}

const sql = (query: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<Record<string, any>[]>(query, params);
const checkoutRow = async (id: string) => (await sql('select * from checkouts where id = ?', [id]))[0]!;
const invoiceRow = async (id: string) =>
  (await sql('select status, transaction_id from subscription_invoices where id = ?', [id]))[0];
const daysFromToday = (days: number) => brazilToday(new Date(Date.now() + days * 86_400_000));

/** A monthly subscription billed by the gateway (it can take extra charges), with an OAT of its organization. */
async function gatewaySubscription(): Promise<{ id: string; oat: string }> {
  const org = await makeOrganization(api.orm);
  const { row } = await paidSubscriptionOf(api, temporal, { organizationId: org.id, recurrenceBilling: 'gateway' });
  return { id: row.id as string, oat: await makeOat(api.orm, org.id) };
}

/** An extra charge created through the API, pending, payable for five more days. */
async function pendingInvoice(s: { id: string; oat: string }): Promise<{ id: string; gatewayId: string }> {
  const res = await api.call('POST', `/api/v1/subscriptions/${s.id}/invoices`, {
    token: s.oat,
    body: { amount: 12_345, due_date: daysFromToday(0), expiration_date: daysFromToday(5), description: 'Setup' },
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, gatewayId: res.body.gateway_invoice_id };
}

/**
 * The invoice was created days ago (its creation window long over) and its workflow lost since; with
 * `pastDeadline`, its deadline passed meanwhile too: the dates the sweep reads lie in the past.
 */
async function lostLongAgo(invoiceId: string, pastDeadline: boolean): Promise<void> {
  await sql(`update subscription_invoices set created_at = created_at - interval '3 days' where id = ?`, [invoiceId]);
  if (!pastDeadline) return;
  await sql('update subscription_invoices set due_date = ?, expiration_date = ? where id = ?', [
    daysFromToday(-3),
    daysFromToday(-2),
    invoiceId,
  ]);
}

/** The buyer confirms the checkout with pix: its gateway transaction and the pix's expiry. */
async function confirmPix(clientSecret: string): Promise<{ transactionId: string; expiresAt: string }> {
  const res = await api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, {
    body: { payment_method: 'pix' },
  });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('confirmed');
  return {
    transactionId: res.body.gateway_payment_data.transaction_id,
    expiresAt: res.body.gateway_payment_data.pix.expires_at,
  };
}

/** An operator terminates the workflow's run; its run id. */
async function lose(workflowId: string): Promise<string> {
  const handle = temporal.workflow.getHandle(workflowId);
  const { runId } = await describedWhen(workflowId, (d) => d.status === 'RUNNING');
  await handle.terminate('an operator stopped it');
  return runId;
}

/** The result of the workflow's run started after `lostRunId`, once it completed. */
async function newRunResult(workflowId: string, lostRunId: string): Promise<unknown> {
  const { runId } = await describedWhen(workflowId, (d) => d.runId !== lostRunId && d.status === 'COMPLETED');
  return temporal.workflow.getHandle(workflowId, runId).result();
}

/**
 * Triggers the schedule and waits for the sweep's run to complete; what it looked at. With `history`,
 * the run's history is recorded under that name for the replay test (RECORD_HISTORIES=1).
 */
async function sweep(history?: string): Promise<SweepCounts> {
  const before = new Set((await sweepRuns()).map((w) => w.runId));
  await temporal.schedule.getHandle(scheduleIdFor(SWEEP_JOB, api.config.TEMPORAL_TASK_QUEUE)).trigger();
  let done: { workflowId: string; runId: string } | undefined;
  await until(async () => (done = (await sweepRuns()).find((w) => !before.has(w.runId))) !== undefined, 30_000);
  const counts = await temporal.workflow.getHandle(done!.workflowId, done!.runId).result();
  if (history) await recordHistory(temporal, history, done!.workflowId, done!.runId);
  return counts;
}

async function sweepRuns(): Promise<{ workflowId: string; runId: string }[]> {
  const runs: { workflowId: string; runId: string }[] = [];
  for await (const w of temporal.workflow.list({
    query: `WorkflowType = 'billingSweepWorkflow' AND ExecutionStatus = 'Completed'`,
  })) {
    if (w.workflowId.startsWith(SWEEP_JOB)) runs.push({ workflowId: w.workflowId, runId: w.runId });
  }
  return runs;
}
