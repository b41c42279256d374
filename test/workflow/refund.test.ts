import { describe, expect, it } from '@jest/globals';
import { Context } from '@temporalio/activity';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { refundGatewayKey } from '../../activities/refunds.ts';
import { type Orm } from '../../db/orm.ts';
import type { PaymentGateway } from '../../gateway/port.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { refundWorkflow } from '../../workflows/refund.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { recordHistory as saveHistory } from '../helpers/histories.ts';
import { useTimeSkipping } from '../helpers/time-skipping.ts';
import { REFUND_GATEWAY_TIMEOUT, refundWorkflowId } from '../../contracts/refund.ts';

/**
 * The refund workflow on the time-skipping test server: three days of gateway silence pass in
 * seconds. Its activities are the real ones, on the test database and the simulated gateway, whose
 * refund answers are lost or refused at will (only while the workflow asks for the refund itself).
 */
const TASK_QUEUE = 'refund-workflow-test';
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;
/** How the gateway treats refundAtGateway's calls in the test at hand. */
let refundFault: 'lose_answer' | 'unavailable' | null = null;

const workers = useTimeSkipping('refund.ts', (started) => ({ env, bundle, orm, sim } = started));

/** The simulator, except that refundAtGateway's refunds meet `refundFault`. */
function faultyGateway(): PaymentGateway {
  const gateway = Object.create(sim) as SimulatedGateway;
  gateway.refund = (transactionId, amount, key) => {
    if (refundFault && Context.current().info.activityType === 'refundAtGateway') {
      if (refundFault === 'lose_answer') sim.faults.loseAnswerNext = 1;
      else sim.faults.failNext = 1;
    }
    return sim.refund(transactionId, amount, key);
  };
  return gateway;
}

const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);

/** A paid sale (a real capture at the simulator) and a pending refund of it, as the refund endpoint leaves it. */
async function pendingRefund(captured: number, amount: number, saleOf?: Awaited<ReturnType<typeof paidSale>>) {
  const sale = saleOf ?? (await paidSale(captured));
  const refundId = uuidv7();
  await sql(
    `insert into refunds (id, organization_id, sale_id, transaction_id, amount, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, 'pending', now(), now())`,
    [refundId, sale.organizationId, sale.saleId, sale.transactionId, amount],
  );
  return { ...sale, refundId };
}

async function paidSale(amount: number) {
  const org = await makeOrganization(orm);
  const [productId, priceId, customerId, transactionId, saleId] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Course', now())`, [
    productId,
    org.id,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at)
     values (?, ?, ?, 'one_time', 'brl', ?, 'unspecified', now())`,
    [priceId, productId, org.id, amount],
  );
  await sql(
    `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, 'Ana', now(), now())`,
    [customerId, org.id, `${uuidv7()}@example.com`],
  );
  const charge = await sim.chargeCard(
    {
      reference: saleId,
      amount,
      currency: 'BRL',
      installments: 1,
      noFeesInstallments: false,
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
       installments, captured_amount, created_at, updated_at)
     values (?, ?, ?, 'succeeded', 'credit', ?, 'BRL', 1, ?, now(), now())`,
    [transactionId, org.id, charge.id, charge.amount, charge.capturedAmount],
  );
  await sql(
    `insert into sales (id, organization_id, transaction_id, customer_id, product_id, price_id, currency, subtotal_amount,
       amount, installments, payment_method, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, 'BRL', ?, ?, 1, 'credit_card', 'paid', now(), now())`,
    [saleId, org.id, transactionId, customerId, productId, priceId, amount, amount],
  );
  return { organizationId: org.id, saleId, transactionId, gatewayTransactionId: charge.id };
}

/** Runs the refund's workflow to its end on a worker of this file; returns its result and how long it took in workflow time. */
async function runRefund(refundId: string) {
  const worker = await workers.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: bundle,
    activities: createActivities({ orm, gateway: faultyGateway() }),
  });
  const result = await worker.runUntil(
    env.client.workflow.execute(refundWorkflow, {
      workflowId: refundWorkflowId(refundId),
      taskQueue: TASK_QUEUE,
      args: [refundId],
    }),
  );
  return { result, path: await pathOf(refundWorkflowId(refundId)) };
}

/**
 * The run's course from its history: each activity, how it ended (with the retry state of a failure)
 * and after how many days of workflow time; timers as `timer`.
 */
async function pathOf(workflowId: string) {
  const { events } = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const EventType = proto.temporal.api.enums.v1.EventType;
  const at = (e: proto.temporal.api.history.v1.IHistoryEvent) => Number(e.eventTime!.seconds) * 1000;
  const steps: string[] = [];
  const scheduled = new Map<number, { name: string; at: number }>();
  for (const e of events ?? []) {
    const type = EventType[e.eventType!];
    if (type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED') {
      scheduled.set(Number(e.eventId), {
        name: e.activityTaskScheduledEventAttributes!.activityType!.name!,
        at: at(e),
      });
    }
    const ended =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
    if (ended) {
      const s = scheduled.get(Number(ended.scheduledEventId))!;
      const retryState = e.activityTaskFailedEventAttributes?.retryState;
      const outcome =
        type.replace('EVENT_TYPE_ACTIVITY_TASK_', '').toLowerCase() +
        (retryState ? ` (${proto.temporal.api.enums.v1.RetryState[retryState]})` : '');
      const days = Math.round((at(e) - s.at) / DAY);
      steps.push(`${s.name} ${outcome}${days > 0 ? ` after ${days} days` : ''}`);
    }
    if (type === 'EVENT_TYPE_TIMER_STARTED') steps.push('timer');
  }
  return steps;
}

async function books(r: { refundId: string; transactionId: string; saleId: string; gatewayTransactionId: string }) {
  const [refund] = await sql('select status, reason from refunds where id = ?', [r.refundId]);
  const [payment] = await sql('select status, refunded_amount::int as refunded from transactions where id = ?', [
    r.transactionId,
  ]);
  const [sale] = await sql('select status, refunded_amount::int as refunded from sales where id = ?', [r.saleId]);
  const ledger = await sql(
    `select amount::int as amount, idempotency_key as key from gateway_sim.ledger where transaction_id = ? and kind = 'refund'
     order by id`,
    [r.gatewayTransactionId],
  );
  return { refund, payment, sale, ledger };
}

const DAY = 24 * 3600 * 1000;

describe('refundWorkflow', () => {
  it('asks the gateway for three days before reading its books', () => {
    expect(REFUND_GATEWAY_TIMEOUT).toBe('3 days');
  });

  it('refunds and settles the refund, its payment and its sale', async () => {
    refundFault = null;
    const r = await pendingRefund(5000, 2000);
    const { result, path } = await runRefund(r.refundId);
    expect(result).toBe('succeeded');
    expect(path).toEqual(['refundAtGateway completed', 'settleRefund completed']);
    expect(await books(r)).toEqual({
      refund: { status: 'succeeded', reason: null },
      payment: { status: 'partial_refunded', refunded: 2000 },
      sale: { status: 'partially_refunded', refunded: 2000 },
      ledger: [{ amount: 2000, key: refundGatewayKey(r.refundId) }],
    });
    await recordHistory('refund-succeeded', r.refundId);
  });

  it('settles a refusal as failed, at once', async () => {
    refundFault = null;
    const sale = await paidSale(3000);
    // More than the gateway will refund: our checks would stop this; the gateway's refusal is what is tested.
    const r = await pendingRefund(3000, 3001, sale);
    const { result, path } = await runRefund(r.refundId);
    expect(result).toBe('failed');
    expect(path).toEqual(['refundAtGateway failed (RETRY_STATE_NON_RETRYABLE_FAILURE)', 'settleRefund completed']);
    const b = await books(r);
    expect(b.refund).toEqual({ status: 'failed', reason: 'gateway: refund exceeds captured amount' });
    expect(b.ledger).toEqual([]);
  });

  it('a refund made whose answers were lost for three days is found in the gateway’s books: succeeded', async () => {
    refundFault = 'lose_answer';
    const r = await pendingRefund(9000, 4000);
    const { result, path } = await runRefund(r.refundId);
    expect(path).toEqual([
      'refundAtGateway failed (RETRY_STATE_TIMEOUT) after 3 days',
      'timer',
      'reconcileRefund completed',
    ]);
    expect(result).toBe('succeeded');
    expect(await books(r)).toEqual({
      refund: { status: 'succeeded', reason: null },
      payment: { status: 'partial_refunded', refunded: 4000 },
      sale: { status: 'partially_refunded', refunded: 4000 },
      ledger: [{ amount: 4000, key: refundGatewayKey(r.refundId) }],
    });
  }, 120_000);

  it('a refund the gateway never made in three days is settled failed, and its amount is refundable again', async () => {
    refundFault = 'unavailable';
    const r = await pendingRefund(9000, 4000);
    const { result, path } = await runRefund(r.refundId);
    expect(path).toEqual([
      'refundAtGateway failed (RETRY_STATE_TIMEOUT) after 3 days',
      'timer',
      'reconcileRefund completed',
    ]);
    expect(result).toBe('failed');
    expect(await books(r)).toEqual({
      refund: { status: 'failed', reason: 'gateway: no answer, and no such refund' },
      payment: { status: 'succeeded', refunded: 0 },
      sale: { status: 'paid', refunded: 0 },
      ledger: [],
    });
  }, 120_000);

  it('when another pending refund could explain the gateway’s total, asks for the keyed refund once more', async () => {
    refundFault = 'lose_answer';
    const sale = await paidSale(9000);
    // Another refund of the same amount, pending too (its own workflow is not run here).
    const other = await pendingRefund(9000, 3000, sale);
    const r = await pendingRefund(9000, 3000, sale);
    const { result, path } = await runRefund(r.refundId);
    expect(path).toEqual([
      'refundAtGateway failed (RETRY_STATE_TIMEOUT) after 3 days',
      'timer',
      'reconcileRefund completed',
    ]);
    expect(result).toBe('succeeded');
    const b = await books(r);
    expect(b.refund.status).toBe('succeeded');
    // The gateway answered with the refund it had made: still one refund, under this refund's key.
    expect(b.ledger).toEqual([{ amount: 3000, key: refundGatewayKey(r.refundId) }]);
    expect(b.payment).toEqual({ status: 'partial_refunded', refunded: 3000 });
    const [untouched] = await sql('select status from refunds where id = ?', [other.refundId]);
    expect(untouched.status).toBe('pending');
  }, 120_000);
});

describe('reconciling a refund holds no lock while the gateway is read', () => {
  it('another refund of the payment recorded during the read makes it compare again, with books read afresh', async () => {
    const sale = await paidSale(9000);
    const other = await pendingRefund(9000, 3000, sale);
    const r = await pendingRefund(9000, 3000, sale);
    // While the reconciliation reads the gateway's books, the other refund is made and recorded: its
    // record takes the payment's row lock, which the reconciliation does not hold meanwhile.
    const steps = createActivities({ orm, gateway: sim });
    let reads = 0;
    const gateway = Object.create(sim) as SimulatedGateway;
    gateway.getTransaction = async (id) => {
      const books = await sim.getTransaction(id);
      if (reads++ === 0) {
        await sim.refund(id, 3000, refundGatewayKey(other.refundId));
        await steps.settleRefund(other.refundId, { status: 'succeeded' });
      }
      return books;
    };
    const reconciling = createActivities({ orm, gateway });
    await expect(reconciling.reconcileRefund(r.refundId)).rejects.toThrow('compare again');
    // The retry reads both books again: the gateway refunded only the other one, so this one never happened.
    expect(await reconciling.reconcileRefund(r.refundId)).toBe('failed');
    expect(await books(r)).toEqual({
      refund: { status: 'failed', reason: 'gateway: no answer, and no such refund' },
      payment: { status: 'partial_refunded', refunded: 3000 },
      sale: { status: 'partially_refunded', refunded: 3000 },
      ledger: [{ amount: 3000, key: refundGatewayKey(other.refundId) }],
    });
  }, 60_000);
});

/** With RECORD_HISTORIES=1 the finished workflow's history is saved for the replay test. */
async function recordHistory(name: string, refundId: string) {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await saveHistory(env.client, name, refundWorkflowId(refundId));
}
