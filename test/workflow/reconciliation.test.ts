import { describe, expect, it } from '@jest/globals';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { uuidv7 } from 'uuidv7';
import { paymentNoticeWorkflowId } from '../../contracts/payment-notice.ts';
import { gatewayRefundsWorkflowId } from '../../contracts/refund.ts';
import { type Orm } from '../../db/orm.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { makeOrganization } from '../helpers/fixtures.ts';
import { recordHistory } from '../helpers/histories.ts';
import { reconciliationBed, today } from '../helpers/reconciliation-bed.ts';
import { useTimeSkipping } from '../helpers/time-skipping.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';
import { WorkflowNotFoundError, type WorkflowStartOptions } from '@temporalio/client';
import type { Client, ScheduleOptions } from '@temporalio/client';
import type { ReconciliationInput } from '../../contracts/reconciliation.ts';
import { ensureSchedules } from '../../worker/schedules.ts';
import { reconciliationWorkflow } from '../../workflows/reconciliation.ts';

/**
 * The reconciliation workflow (decision 0073) with its real activities, on the test database and the
 * simulated gateway: our books and the simulator's ledger agree (only its fees differ, as its fee
 * schedule says); a payment the gateway approved whose notice never reached us repairs itself
 * (decision 0077); a day with a fault of each kind ends with a line and its reason for every one, the
 * reasons summing the difference to zero, and a second run after the repairs leaves only what no
 * notice can repair; the daily Schedule's run reports on every organization with money.
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;

const workers = useTimeSkipping('index.ts', (started) => ({ env, bundle, orm, sim } = started));
const { sql, paidSale, directPixPaidUnnoticed, reconcile, report } = reconciliationBed(() => ({
  env,
  bundle,
  orm,
  sim,
  workers,
}));
const card = {
  number: '4111111111111111',
  holderName: 'ANA',
  expirationMonth: '12',
  expirationYear: '2035',
  cvv: '123',
};
const decodeFromPayloadsAtIndex = async (payloads: any[]) =>
  payloads.map((p) => JSON.parse(Buffer.from(p.data as Uint8Array).toString('utf8')));
const reconcileNow = (organizationId: string, repairs: string[] = []) =>
  reconcile({ organizationId, day: today() }, repairs);

describe('reconciliationWorkflow', () => {
  it('matches a day where our books and the simulator agree; only its fees differ, as expected', async () => {
    const org = await makeOrganization(orm);
    const a = await paidSale(org.id, 10_000);
    const b = await paidSale(org.id, 4_990);
    const { outcome } = await reconcileNow(org.id);
    expect(outcome.reports).toHaveLength(1);
    // One organization's run leaves the others' rows out, uncounted.
    expect(outcome.unattributed).toBeNull();
    const r = await report(outcome.reports[0]!.id);
    expect(r.lines).toEqual([
      {
        kind: 'payment',
        gatewayId: a.gatewayId,
        ours: 10_000,
        theirs: 10_000,
        difference: 0,
        reason: null,
        repair: null,
      },
      { kind: 'fee', gatewayId: a.gatewayId, ours: 0, theirs: -399, difference: 399, reason: 'fee', repair: null },
      {
        kind: 'payment',
        gatewayId: b.gatewayId,
        ours: 4_990,
        theirs: 4_990,
        difference: 0,
        reason: null,
        repair: null,
      },
      // 3.99 % of 49,90 = 1,99101.
      { kind: 'fee', gatewayId: b.gatewayId, ours: 0, theirs: -199, difference: 199, reason: 'fee', repair: null },
    ]);
    expect(r).toMatchObject({ status: 'balanced', ours: 14_990, theirs: 14_392, unmatched: 598, matched: 2 });
    expect(r.ours - r.theirs - r.unmatched).toBe(0);
    const [event] = await sql(
      `select data from events where organization_id = ? and type = 'reconciliation.completed'`,
      [org.id],
    );
    expect(event.data).toMatchObject({ id: outcome.reports[0]!.id, status: 'balanced', unmatched_total: 598 });
  });

  it('records a payment the gateway approved whose notice never reached us, as its notice would have', async () => {
    const org = await makeOrganization(orm);
    const pix = await directPixPaidUnnoticed(org.id, 3_300);
    const notice = paymentNoticeWorkflowId(pix.gatewayId, 'succeeded');
    const { outcome } = await reconcileNow(org.id, [notice]);
    const r = await report(outcome.reports[0]!.id);
    expect(r.lines).toEqual([
      {
        kind: 'payment',
        gatewayId: pix.gatewayId,
        ours: 0,
        theirs: 3_300,
        difference: -3_300,
        reason: 'missing_in_books',
        repair: 'payment_notice',
      },
      // 0.99 % of 33,00 = 0,3267.
      { kind: 'fee', gatewayId: pix.gatewayId, ours: 0, theirs: -33, difference: 33, reason: 'fee', repair: null },
    ]);
    expect(outcome.reports[0]).toMatchObject({ status: 'drift', repairsStarted: 1 });
    expect(r.ours - r.theirs - r.unmatched).toBe(0);
    const [payment] = await sql(`select status, captured_amount::int as captured from transactions where id = ?`, [
      pix.transactionId,
    ]);
    expect(payment).toEqual({ status: 'succeeded', captured: 3_300 });

    const again = await reconcileNow(org.id);
    const second = await report(again.outcome.reports[0]!.id);
    expect(second.lines.find((l: any) => l.kind === 'payment')).toMatchObject({
      ours: 3_300,
      theirs: 3_300,
      reason: null,
    });
    expect(again.outcome.reports[0]).toMatchObject({ status: 'balanced', repairsStarted: 0 });
  });

  it('tells a checkout whose workflow still runs of its payment our books lack, as the notice would have', async () => {
    // The checkout's workflow is running (on a queue no worker polls here): its card payment's answer was lost.
    // (The time-skipping server knows none of our search attributes: the workflow is started without them.)
    const start = (type: string, o: WorkflowStartOptions) =>
      env.client.workflow.start(type, { ...o, typedSearchAttributes: undefined });
    const temporal = { workflow: { start } } as unknown as Client;
    const checkout = await makeCheckout(orm, temporal, { amount: 4_500, taskQueue: `idle-${uuidv7()}` });
    const charge = await sim.chargeCard(
      {
        reference: checkout.id,
        amount: 4_500,
        currency: 'BRL',
        installments: 1,
        noFeesInstallments: true,
        card,
        capture: true,
      },
      `checkout:${checkout.id}:charge`,
    );
    const { outcome } = await reconcileNow(checkout.organizationId);
    const r = await report(outcome.reports[0]!.id);
    expect(r.lines[0]).toMatchObject({ gatewayId: charge.id, reason: 'missing_in_books', repair: 'payment_notice' });
    expect(outcome.reports[0]).toMatchObject({ repairsStarted: 1 });
    const running = env.client.workflow.getHandle(checkoutWorkflowId(checkout.id));
    const { events } = await running.fetchHistory();
    const signals = events!.filter((e) => e.workflowExecutionSignaledEventAttributes);
    expect(signals.map((e) => e.workflowExecutionSignaledEventAttributes!.signalName)).toEqual(['paymentUpdated']);
    const [update] = await decodeFromPayloadsAtIndex(
      signals[0]!.workflowExecutionSignaledEventAttributes!.input!.payloads!,
    );
    expect(update).toEqual({ transactionId: charge.id, status: 'succeeded' });
    // Its workflow records it: the payment-notice workflow is not started behind its back.
    const notice = env.client.workflow.getHandle(paymentNoticeWorkflowId(charge.id, 'succeeded'));
    await expect(notice.describe()).rejects.toThrow(WorkflowNotFoundError);
    await running.terminate('test over');
  });

  it('names every fault of a day with its reason, sums them to zero, and leaves after its repairs only what needs a person', async () => {
    const org = await makeOrganization(orm);
    // A refund made only at the gateway (its panel): the notice was missed.
    const refundedThere = await paidSale(org.id, 5_000);
    await sim.refund(refundedThere.gatewayId, 2_000, `panel:${uuidv7()}`);
    // A payment our books lack: a direct pix paid at the bank, its notice lost.
    const unbooked = await directPixPaidUnnoticed(org.id, 3_000);
    // An amount mismatch: our books say 70,00, the gateway captured 71,00.
    const mismatched = await paidSale(org.id, 7_100);
    await sql(`update transactions set captured_amount = 7000 where id = ?`, [mismatched.transactionId]);
    // Instalment timing: 3 × 100,00, one released today.
    const instalments = await paidSale(org.id, 30_000, 3);
    const repairs = [
      gatewayRefundsWorkflowId(refundedThere.gatewayId, 2_000),
      paymentNoticeWorkflowId(unbooked.gatewayId, 'succeeded'),
    ];

    const { outcome, workflowId } = await reconcileNow(org.id, repairs);
    await recordHistory(env.client, 'reconciliation-repaired', workflowId);
    const r = await report(outcome.reports[0]!.id);
    const line = (gatewayId: string, kind: string) =>
      r.lines.find((l: any) => l.gatewayId === gatewayId && l.kind === kind);
    expect(line(refundedThere.gatewayId, 'refund')).toEqual({
      kind: 'refund',
      gatewayId: refundedThere.gatewayId,
      ours: 0,
      theirs: -2_000,
      difference: 2_000,
      reason: 'missing_in_books',
      repair: 'gateway_refunds',
    });
    expect(line(unbooked.gatewayId, 'payment')).toMatchObject({
      ours: 0,
      theirs: 3_000,
      reason: 'missing_in_books',
      repair: 'payment_notice',
    });
    expect(line(mismatched.gatewayId, 'payment')).toMatchObject({ difference: -100, reason: 'amount_mismatch' });
    expect(line(instalments.gatewayId, 'payment')).toMatchObject({
      ours: 30_000,
      theirs: 10_000,
      difference: 20_000,
      reason: 'installment_timing',
    });
    // 4.99 % of 300,00 in instalments; 3.99 % of a card in one; 0.99 % of a pix.
    expect(line(instalments.gatewayId, 'fee')).toMatchObject({ theirs: -1_497, reason: 'fee' });
    expect(line(refundedThere.gatewayId, 'fee')).toMatchObject({ theirs: -200, reason: 'fee' });
    expect(line(unbooked.gatewayId, 'fee')).toMatchObject({ theirs: -30, reason: 'fee' });
    expect(r.lines.every((l: any) => (l.reason === null) === (l.difference === 0))).toBe(true);
    expect(r.status).toBe('drift');
    expect(r.ours - r.theirs - r.unmatched).toBe(0);
    expect(r.unmatched).toBe(r.lines.reduce((t: number, l: any) => t + l.difference, 0));
    expect(outcome.reports[0]).toMatchObject({ status: 'drift', repairsStarted: 2 });

    // Self-repair: the refund and the payment are in our books now, as their notices would have put them.
    const [refund] = await sql(`select amount::int as amount, status from refunds where transaction_id = ?`, [
      refundedThere.transactionId,
    ]);
    expect(refund).toEqual({ amount: 2_000, status: 'succeeded' });
    const [pix] = await sql(`select status, captured_amount::int as captured from transactions where id = ?`, [
      unbooked.transactionId,
    ]);
    expect(pix).toEqual({ status: 'succeeded', captured: 3_000 });

    // Run again: what a notice repairs matches; left are the expected reasons and the mismatch a person must see.
    const again = await report((await reconcileNow(org.id)).outcome.reports[0]!.id);
    const unexpected = again.lines.filter((l: any) => l.reason && !['fee', 'installment_timing'].includes(l.reason));
    expect(unexpected).toEqual([
      expect.objectContaining({ gatewayId: mismatched.gatewayId, reason: 'amount_mismatch' }),
    ]);
    expect(again.lines.some((l: any) => l.reason === 'missing_in_books')).toBe(false);
    expect(again.ours - again.theirs - again.unmatched).toBe(0);
  });

  it('runs the daily Schedule’s day: yesterday, a report for every organization with money and none for one without', async () => {
    // What the Schedule starts, as every worker registers it.
    const created: ScheduleOptions[] = [];
    const client = { schedule: { create: async (o: ScheduleOptions) => void created.push(o) } } as unknown as Client;
    await ensureSchedules(client, { TEMPORAL_TASK_QUEUE: 'billing' });
    const schedule = created.find((o) => o.scheduleId === 'daily-reconciliation:billing')!;
    expect(schedule.spec).toEqual({ calendars: [{ hour: 4, minute: 0 }] });
    const action = schedule.action as unknown as { workflowType: unknown; args: [ReconciliationInput] };
    expect(action.workflowType).toBe(reconciliationWorkflow);

    const [a, b, idle] = [await makeOrganization(orm), await makeOrganization(orm), await makeOrganization(orm)];
    const sales = [await paidSale(a.id, 10_000), await paidSale(b.id, 2_000), await paidSale(b.id, 3_000)];
    // Yesterday's money, in our books and in the simulator's ledger; yesterday by the workflow's clock,
    // which the time-skipping server may have moved on.
    const yesterday = new Date(Number(await env.currentTimeMs()) - 86_400_000).toISOString().slice(0, 10);
    const at = `${yesterday}T12:00:00Z`;
    await sql(`update transactions set confirmed_at = ?, created_at = ? where id in (?, ?, ?)`, [
      at,
      at,
      ...sales.map((s) => s.transactionId),
    ]);
    await sql(`update gateway_sim.ledger set created_at = ? where transaction_id in (?, ?, ?)`, [
      at,
      ...sales.map((s) => s.gatewayId),
    ]);

    // The account's ledger also holds a fee of no payment and a payment of no organization's.
    const gateway = Object.create(sim) as SimulatedGateway;
    const foreign = { kind: 'payment' as const, gatewayId: `foreign-${uuidv7()}`, reference: null, amount: 5_000 };
    const accountFee = { kind: 'fee' as const, gatewayId: null, reference: null, amount: -300 };
    gateway.ledger = async (window) => [...(await sim.ledger(window)), foreign, accountFee];

    const { outcome } = await reconcile(action.args[0], [], gateway);
    // Not lost silently, and on no organization's report.
    expect(outcome.unattributed).toEqual({ rows: 2, amount: 4_700 });
    expect(await sql(`select 1 from reconciliation_lines where gateway_id = ?`, [foreign.gatewayId])).toEqual([]);
    expect(outcome.day).toBe(yesterday);
    const byOrg = new Map(outcome.reports.map((r) => [r.organizationId, r]));
    expect(byOrg.has(idle.id)).toBe(false);
    expect(byOrg.get(a.id)).toMatchObject({ status: 'balanced', unmatchedTotal: 399 });
    // 3.99 % of 20,00 and of 30,00: 80 + 120.
    expect(byOrg.get(b.id)).toMatchObject({ status: 'balanced', unmatchedTotal: 200 });
    const stored = await sql(
      `select organization_id as org, day::text as day from reconciliations where organization_id in (?, ?, ?)`,
      [a.id, b.id, idle.id],
    );
    expect(stored.sort((x, y) => String(x.org).localeCompare(y.org))).toEqual(
      [
        { org: a.id, day: yesterday },
        { org: b.id, day: yesterday },
      ].sort((x, y) => x.org.localeCompare(y.org)),
    );
  });
});
