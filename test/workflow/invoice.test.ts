import { describe, expect, it } from '@jest/globals';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { uuidv7 } from 'uuidv7';
import { type Orm } from '../../db/orm.ts';
import { invoiceDeadline } from '../../domain/invoices.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { recordHistory } from '../helpers/histories.ts';
import {
  extraChargeInput,
  gatewayBilledSubscription,
  runInvoiceWorkflow,
  type InvoiceHandle,
} from '../helpers/invoice-runs.ts';
import { useTimeSkipping } from '../helpers/time-skipping.ts';
import { invoiceNoticeSignal, invoiceStateQuery, type InvoiceWorkflowInput } from '../../contracts/invoice.ts';
import { until, waitFor } from '../helpers/processes.ts';

/**
 * An extra-charge invoice's workflow on the time-skipping test server, with the real activities on
 * the test database and the simulated gateway: created and numbered, then paid, failed or voided at
 * its deadline, where the gateway is asked before anything is decided (a lost callback included).
 */
const DAY = 86_400_000;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;

const workers = useTimeSkipping('invoice.ts', (started) => ({ env, bundle, orm, sim } = started));

const sql = (query: string, params: unknown[] = []): Promise<any[]> => orm.em.getConnection().execute(query, params);
const key = (label: string) => `test:${label}:${uuidv7()}`;

const subscription = () => gatewayBilledSubscription({ env, orm, sim });

type Subscription = Awaited<ReturnType<typeof subscription>>;

/** The workflow's input for an invoice of R$ 150,00 due today (test-server time), payable for `days` more days. */
const invoiceInput = (s: Subscription, days: number | null = 2) => extraChargeInput(env, s, days);

type Handle = InvoiceHandle;

/** Runs the invoice's workflow while `during` acts on it; a worker (and task queue) per run. */
const run = <T>(input: InvoiceWorkflowInput, during: (handle: Handle) => Promise<T>): Promise<T> =>
  runInvoiceWorkflow({ env, bundle, orm, sim }, workers, input, during);

/** Polls the workflow until the invoice is stored pending at the gateway; its gateway id. */
async function pending(handle: Handle): Promise<string> {
  let last: string | undefined;
  return waitFor(
    async () => {
      const state = await handle.query(invoiceStateQuery);
      last = state.status;
      return state.status === 'pending' && state.gatewayInvoiceId!;
    },
    { what: 'the invoice to be pending', timeoutMs: 10_000, describe: () => String(last) },
  );
}

/** Waits until a workflow task completed after the run's latest signal: the workflow has handled it. */
async function signalHandled(handle: Handle): Promise<void> {
  const { EventType } = temporal.api.enums.v1;
  await until(
    async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const signaled = events.findLastIndex((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
      return (
        signaled >= 0 &&
        events.slice(signaled).some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
      );
    },
    10_000,
    'the workflow to handle the signal',
  );
}

const invoiceRow = async (id: string) =>
  (
    await sql(
      `select number, status, amount::int as amount, failure_reason, transaction_id, paid_at, modified_at,
         due_date::text as due_date
       from subscription_invoices where id = ?`,
      [id],
    )
  )[0];
const eventTypes = async (organizationId: string) =>
  (await sql('select type from events where organization_id = ? order by created_at, id', [organizationId])).map(
    (e) => e.type,
  );

describe('invoice workflow', () => {
  it('creates the invoice at the gateway, numbers it, and records the payment the callback tells of, with a sale', async () => {
    const s = await subscription();
    const input = await invoiceInput(s);
    const outcome = await run(input, async (handle) => {
      const gatewayId = await pending(handle);
      expect(await invoiceRow(input.invoiceId)).toMatchObject({
        number: `${s.slug.toUpperCase()}-1`,
        status: 'pending',
        amount: 15_000,
        due_date: input.dueDate,
      });
      await sim.payInvoice(gatewayId);
      await handle.signal(invoiceNoticeSignal, { status: 'paid' });
      const result = await handle.result();
      await recordHistory(env.client, 'invoice-paid', handle.workflowId);
      return result;
    });
    expect(outcome).toBe('paid');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'paid', paid_at: expect.any(String), failure_reason: null });
    // Settled on the callback (workflow time), long before the deadline's reconciliation.
    expect(Date.parse(row.modified_at)).toBeLessThan(Date.parse(`${input.expirationDate}T00:00:00Z`));
    const [transaction] = await sql(
      'select status, amount::int as amount, payment_type, checkout_id from transactions where id = ?',
      [row.transaction_id],
    );
    expect(transaction).toEqual({ status: 'succeeded', amount: 15_000, payment_type: 'credit', checkout_id: null });
    const sales = await sql(
      'select amount::int as amount, subscription_id, customer_id, transaction_id, status from sales where invoice_id = ?',
      [input.invoiceId],
    );
    expect(sales).toEqual([
      {
        amount: 15_000,
        subscription_id: s.id,
        customer_id: s.customerId,
        transaction_id: row.transaction_id,
        status: 'paid',
      },
    ]);
    expect(await eventTypes(s.organizationId)).toEqual([
      'invoice.created',
      'invoice.paid',
      'sale.created',
      'sale.paid',
    ]);
  });

  it('fails the invoice when the gateway refuses its charge, with the reason and the refused transaction, no sale', async () => {
    const s = await subscription();
    const input = await invoiceInput(s);
    const outcome = await run(input, async (handle) => {
      const gatewayId = await pending(handle);
      await sim.failInvoice(gatewayId);
      await handle.signal(invoiceNoticeSignal, { status: 'failed' });
      const result = await handle.result();
      return result;
    });
    expect(outcome).toBe('failed');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'failed', failure_reason: 'card_declined', paid_at: null });
    expect(Date.parse(row.modified_at)).toBeLessThan(Date.parse(`${input.expirationDate}T00:00:00Z`));
    const [transaction] = await sql('select status, decline_reason from transactions where id = ?', [
      row.transaction_id,
    ]);
    expect(transaction).toEqual({ status: 'failed', decline_reason: 'card_declined' });
    expect(await sql('select 1 from sales where invoice_id = ?', [input.invoiceId])).toEqual([]);
    expect(await eventTypes(s.organizationId)).toEqual(['invoice.created', 'invoice.failed']);
  });

  it('a callback that says nothing new changes nothing: the invoice stays pending', async () => {
    const s = await subscription();
    const input = await invoiceInput(s);
    await run(input, async (handle) => {
      await pending(handle);
      await handle.signal(invoiceNoticeSignal, { status: 'pending' });
      await signalHandled(handle);
      expect((await handle.query(invoiceStateQuery)).status).toBe('pending');
    });
    expect((await invoiceRow(input.invoiceId)).status).toBe('pending');
  });

  it('voids an invoice unpaid at its deadline, at the gateway too, so that it can no longer be paid', async () => {
    const s = await subscription();
    const input = await invoiceInput(s, 2);
    const { outcome, gatewayId } = await run(input, async (handle) => {
      const id = await pending(handle);
      const result = await handle.result();
      return { outcome: result, gatewayId: id };
    });
    expect(outcome).toBe('voided');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'voided', transaction_id: null });
    expect(Date.parse(row.modified_at)).toBeGreaterThanOrEqual(
      invoiceDeadline(input.dueDate, input.expirationDate).getTime(),
    );
    expect((await sim.getInvoice(gatewayId))!.status).toBe('voided');
    await expect(sim.payInvoice(gatewayId)).rejects.toThrow('Cannot pay an invoice that is voided');
    expect(await eventTypes(s.organizationId)).toEqual(['invoice.created', 'invoice.voided']);
  });

  it('an invoice the gateway reports lapsed (failed with no charge) is voided, not failed', async () => {
    const s = await subscription();
    const input = await invoiceInput(s, 2);
    sim.now = () => new Date(Date.now() + 5 * DAY);
    try {
      expect(await run(input, async (handle) => handle.result())).toBe('voided');
    } finally {
      sim.now = () => new Date();
    }
    expect(await invoiceRow(input.invoiceId)).toMatchObject({ status: 'voided', failure_reason: null });
  });

  it('asks the gateway at the deadline: an invoice paid whose callback never came is recorded paid, not voided', async () => {
    const s = await subscription();
    const input = await invoiceInput(s, null);
    const outcome = await run(input, async (handle) => {
      await sim.payInvoice(await pending(handle));
      // No notice: the callback was lost. Thirty days after the due date the workflow asks the gateway.
      const result = await handle.result();
      return result;
    });
    expect(outcome).toBe('paid');
    const row = await invoiceRow(input.invoiceId);
    expect(row).toMatchObject({ status: 'paid' });
    expect(Date.parse(row.modified_at)).toBeGreaterThanOrEqual(invoiceDeadline(input.dueDate, null).getTime());
    expect(await sql('select 1 from sales where invoice_id = ?', [input.invoiceId])).toHaveLength(1);
  });

  it('numbers the invoices of an organization one after the other', async () => {
    const s = await subscription();
    const numbers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const input = await invoiceInput(s);
      await run(input, async (handle) => pending(handle));
      numbers.push((await invoiceRow(input.invoiceId)).number);
    }
    const prefix = s.slug.toUpperCase();
    expect(numbers).toEqual([`${prefix}-1`, `${prefix}-2`, `${prefix}-3`]);
    const [org] = await sql('select customer_invoice_next_number from organizations where id = ?', [s.organizationId]);
    expect(org.customer_invoice_next_number).toBe(4);
  });

  it('keeps nothing the gateway refused to create, and takes no number for it', async () => {
    const s = await subscription();
    await sim.cancelSubscription(s.gatewaySubscriptionId, key('cancel'));
    const input = await invoiceInput(s);
    expect(await run(input, async (handle) => handle.result())).toBe('refused');
    expect(await invoiceRow(input.invoiceId)).toBeUndefined();
    const [org] = await sql('select customer_invoice_next_number from organizations where id = ?', [s.organizationId]);
    expect(org.customer_invoice_next_number).toBe(1);
    expect(await eventTypes(s.organizationId)).toEqual([]);
  });

  it('a gateway that creates it only after the request stopped waiting: abandoned, and the late invoice voided', async () => {
    const s = await subscription();
    const input = {
      ...(await invoiceInput(s)),
      answerBy: new Date((await env.currentTimeMs()) + 10_000).toISOString(),
    };
    // Down for the first tries (1 s, 2 s, 4 s, 8 s … apart): past answerBy, then it answers.
    sim.faults.failNext = 6;
    try {
      const outcome = await run(input, async (handle) => {
        const result = await handle.result();
        return result;
      });
      expect(outcome).toBe('abandoned');
    } finally {
      sim.faults.failNext = 0;
    }
    expect(await invoiceRow(input.invoiceId)).toBeUndefined();
    const made = await sql('select status from gateway_sim.invoices where subscription_id = ?', [
      s.gatewaySubscriptionId,
    ]);
    expect(made).toEqual([{ status: 'voided' }]);
  });
});
