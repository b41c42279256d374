import { describe, expect, it } from '@jest/globals';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { reconciliationWorkflowId } from '../../contracts/reconciliation.ts';
import { gatewayRefundsWorkflowId } from '../../contracts/refund.ts';
import { type Orm } from '../../db/orm.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { reconciliationWorkflow } from '../../workflows/reconciliation.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { recordHistory } from '../helpers/histories.ts';
import { useTimeSkipping } from '../helpers/time-skipping.ts';

/**
 * The reconciliation workflow (decision 0073) with its real activities, on the test database and the
 * simulated gateway: our books and the simulator's ledger agree (only its fees differ, as its fee
 * schedule says), and then a day with a fault of each kind, every one ending on a line with its reason
 * and the reasons summing the difference to zero; the refund made only at the gateway repairs itself.
 */
const TASK_QUEUE = 'reconciliation-workflow-test';
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;

const workers = useTimeSkipping('index.ts', (started) => ({ env, bundle, orm, sim } = started));

const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);
const today = () => new Date().toISOString().slice(0, 10);

/** A sale paid by card at the simulator and recorded in our books as the checkout records one. */
async function paidSale(organizationId: string, amount: number, installments = 1) {
  const [productId, priceId, customerId, transactionId, saleId] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Course', now())`, [
    productId,
    organizationId,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at)
     values (?, ?, ?, 'one_time', 'brl', ?, 'unspecified', now())`,
    [priceId, productId, organizationId, amount],
  );
  await sql(
    `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, 'Ana', now(), now())`,
    [customerId, organizationId, `${uuidv7()}@example.com`],
  );
  const charge = await sim.chargeCard(
    {
      reference: saleId,
      amount,
      currency: 'BRL',
      installments,
      noFeesInstallments: true,
      card: {
        number: '4111111111111111',
        holderName: 'ANA',
        expirationMonth: '12',
        expirationYear: '2035',
        cvv: '123',
      },
      capture: true,
    },
    `test:${saleId}`,
  );
  await sql(
    `insert into transactions (id, organization_id, gateway_transaction_id, status, payment_type, amount, currency,
       installments, captured_amount, confirmed_at, created_at, updated_at)
     values (?, ?, ?, 'succeeded', 'credit', ?, 'BRL', ?, ?, now(), now(), now())`,
    [transactionId, organizationId, charge.id, charge.amount, installments, charge.capturedAmount],
  );
  await sql(
    `insert into sales (id, organization_id, transaction_id, customer_id, product_id, price_id, currency, subtotal_amount,
       amount, installments, payment_method, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, 'BRL', ?, ?, ?, 'credit_card', 'paid', now(), now())`,
    [saleId, organizationId, transactionId, customerId, productId, priceId, amount, amount, installments],
  );
  return { saleId, transactionId, gatewayId: charge.id };
}

async function reconcileNow(organizationId: string) {
  const workflowId = reconciliationWorkflowId(organizationId, today(), uuidv7());
  const worker = await workers.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: bundle,
    activities: createActivities({ orm, gateway: sim }),
  });
  const outcome = await worker.runUntil(async () => {
    const result = await env.client.workflow.execute(reconciliationWorkflow, {
      workflowId,
      taskQueue: TASK_QUEUE,
      args: [{ organizationId, day: today() }],
    });
    // The repairs it started run on this worker too.
    for (const id of repairs) await env.client.workflow.getHandle(id).result();
    return result;
  });
  return { outcome, workflowId };
}
let repairs: string[] = [];

async function report(id: string) {
  const [row] = await sql(
    `select status, ours_total::int as ours, theirs_total::int as theirs, unmatched_total::int as unmatched,
            matched_count as matched, unmatched_count as "unmatchedCount" from reconciliations where id = ?`,
    [id],
  );
  const lines = await sql(
    `select kind, gateway_id as "gatewayId", ours::int, theirs::int, difference::int, reason, repair
       from reconciliation_lines where reconciliation_id = ? order by position`,
    [id],
  );
  return { ...row, lines };
}

describe('reconciliationWorkflow', () => {
  it('matches a day where our books and the simulator agree; only its fees differ, as expected', async () => {
    repairs = [];
    const org = await makeOrganization(orm);
    const a = await paidSale(org.id, 10_000);
    const b = await paidSale(org.id, 4_990);
    const { outcome, workflowId } = await reconcileNow(org.id);
    expect(outcome.reports).toHaveLength(1);
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
    await recordHistory(env.client, 'reconciliation-balanced', workflowId);
  });

  it('names every fault with its reason, sums them to zero, and records a refund made only at the gateway', async () => {
    const org = await makeOrganization(orm);
    // A refund made only at the gateway (its panel): the notice was missed.
    const refundedThere = await paidSale(org.id, 5_000);
    await sim.refund(refundedThere.gatewayId, 2_000, `panel:${uuidv7()}`);
    // A payment our books lack: they still hold it uncaptured (its notice was missed).
    const unbooked = await paidSale(org.id, 3_000);
    await sql(`update transactions set captured_amount = 0 where id = ?`, [unbooked.transactionId]);
    // An amount mismatch: our books say 70,00, the gateway captured 71,00.
    const mismatched = await paidSale(org.id, 7_100);
    await sql(`update transactions set captured_amount = 7000 where id = ?`, [mismatched.transactionId]);
    // Instalment timing: 3 × 100,00, one released today.
    const instalments = await paidSale(org.id, 30_000, 3);
    repairs = [gatewayRefundsWorkflowId(refundedThere.gatewayId, 2_000)];

    const { outcome } = await reconcileNow(org.id);
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
    expect(line(unbooked.gatewayId, 'payment')).toMatchObject({ ours: 0, theirs: 3_000, reason: 'missing_in_books' });
    expect(line(mismatched.gatewayId, 'payment')).toMatchObject({ difference: -100, reason: 'amount_mismatch' });
    expect(line(instalments.gatewayId, 'payment')).toMatchObject({
      ours: 30_000,
      theirs: 10_000,
      difference: 20_000,
      reason: 'installment_timing',
    });
    // 4.99 % of 300,00 in instalments; 3.99 % of the others.
    expect(line(instalments.gatewayId, 'fee')).toMatchObject({ theirs: -1_497, reason: 'fee' });
    expect(r.lines.every((l: any) => (l.reason === null) === (l.difference === 0))).toBe(true);
    expect(r.status).toBe('drift');
    expect(r.ours - r.theirs - r.unmatched).toBe(0);
    expect(r.unmatched).toBe(r.lines.reduce((t: number, l: any) => t + l.difference, 0));
    expect(outcome.reports[0]).toMatchObject({ status: 'drift', repairsStarted: 1 });

    // Self-repair: the refund is in our books now, as its notice would have put it.
    const [refund] = await sql(`select amount::int as amount, status from refunds where transaction_id = ?`, [
      refundedThere.transactionId,
    ]);
    expect(refund).toEqual({ amount: 2_000, status: 'succeeded' });

    // Run again: the refund matches now; the rest keep their reasons.
    repairs = [];
    const again = await report((await reconcileNow(org.id)).outcome.reports[0]!.id);
    expect(again.lines.find((l: any) => l.gatewayId === refundedThere.gatewayId && l.kind === 'refund')).toMatchObject({
      ours: -2_000,
      theirs: -2_000,
      reason: null,
    });
    expect(again.ours - again.theirs - again.unmatched).toBe(0);
  });
});
