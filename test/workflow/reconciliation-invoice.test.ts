import { describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { invoiceStateQuery } from '../../contracts/invoice.ts';
import { paymentNoticeWorkflowId } from '../../contracts/payment-notice.ts';
import type { Orm } from '../../db/orm.ts';
import { invoiceDeadline } from '../../domain/invoices.ts';
import {
  extraChargeInput,
  gatewayBilledSubscription,
  runInvoiceWorkflow,
  type InvoiceHandle,
} from '../helpers/invoice-runs.ts';
import { waitFor } from '../helpers/processes.ts';
import { reconciliationBed, today } from '../helpers/reconciliation-bed.ts';
import { useTimeSkipping } from '../helpers/time-skipping.ts';
import { paymentNoticeWorkflow } from '../../workflows/payment-notice.ts';

/**
 * The reconciliation (decisions 0073, 0077) of an extra-charge invoice's payment our books lack: the
 * simulator charged the invoice, but its notices never reached us (this simulator has no callback
 * URL), so the invoice's workflow still waits, pending, for its deadline. The day's run names the
 * payment and signals that workflow, which asks the gateway and records the invoice paid at once, with
 * its one sale; the gateway's one capture is all there is; a second run of the day is balanced.
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;

const workers = useTimeSkipping('index.ts', (started) => ({ env, bundle, orm, sim } = started));
const { sql, reconcile, report } = reconciliationBed(() => ({ env, bundle, orm, sim, workers }));
const decode = (payloads: { data?: Uint8Array | null }[]) =>
  payloads.map((p) => JSON.parse(Buffer.from(p.data!).toString('utf8')));

/** Polls the invoice's workflow until the invoice is stored pending at the gateway; its gateway id. */
const pending = (handle: InvoiceHandle) =>
  waitFor(
    async () => {
      const state = await handle.query(invoiceStateQuery);
      return state.status === 'pending' && state.gatewayInvoiceId!;
    },
    { what: 'the invoice to be pending', timeoutMs: 10_000 },
  );

describe('reconciliation of an extra-charge invoice paid at the gateway, its notice lost', () => {
  it('signals the invoice’s waiting workflow, which records it paid once; a second run is balanced', async () => {
    const s = await gatewayBilledSubscription({ env, orm, sim });
    // Payable for the gateway's default 30 days: its deadline is far past anything this test waits for.
    const input = await extraChargeInput(env, s, null);
    await runInvoiceWorkflow({ env, bundle, orm, sim }, workers, input, async (handle) => {
      const gatewayInvoiceId = await pending(handle);
      const paid = await sim.payInvoice(gatewayInvoiceId);
      const gatewayId = paid.transactionId!;
      // No notice reached the engine: our books lack the payment, the invoice still waits.
      expect(await sql(`select 1 from transactions where gateway_transaction_id = ?`, [gatewayId])).toEqual([]);
      expect((await handle.query(invoiceStateQuery)).status).toBe('pending');

      const { outcome } = await reconcile({ organizationId: s.organizationId, day: today() });
      const r = await report(outcome.reports[0]!.id);
      expect(r.lines.find((l: any) => l.kind === 'payment')).toEqual({
        kind: 'payment',
        gatewayId,
        ours: 0,
        theirs: 15_000,
        difference: -15_000,
        reason: 'missing_in_books',
        repair: 'payment_notice',
      });
      expect(outcome.reports[0]).toMatchObject({ status: 'drift', repairsStarted: 1 });
      expect(r.ours - r.theirs - r.unmatched).toBe(0);

      // The run signalled the invoice's own workflow before it ended: it asked the gateway and ended paid.
      const { events } = await handle.fetchHistory();
      const signals = events!
        .map((e) => e.workflowExecutionSignaledEventAttributes)
        .filter((a) => !!a)
        .map((a) => ({ name: a.signalName, input: decode(a.input!.payloads!) }));
      expect(signals).toEqual([{ name: 'invoiceNotice', input: [{ status: 'succeeded' }] }]);
      let last = '';
      await waitFor(async () => (last = (await handle.query(invoiceStateQuery)).status) === 'paid', {
        what: 'the invoice to be paid',
        timeoutMs: 10_000,
        describe: () => last,
      });
      expect(await handle.result()).toBe('paid');
      // Signalled, not left to the payment-notice workflow (which leaves an invoice's charge to its workflow).
      const notice = env.client.workflow.getHandle(paymentNoticeWorkflowId(gatewayId, 'succeeded'));
      await expect(notice.describe()).rejects.toThrow(WorkflowNotFoundError);

      const [invoice] = await sql(
        `select status, transaction_id, modified_at from subscription_invoices where id = ?`,
        [input.invoiceId],
      );
      expect(invoice.status).toBe('paid');
      // Settled on the signal, long before the deadline when the workflow would have asked anyway.
      expect(Date.parse(invoice.modified_at)).toBeLessThan(invoiceDeadline(input.dueDate, null).getTime());
      // Paid exactly once: one payment of ours, one sale, and one capture at the gateway.
      const payments = await sql(
        `select id, status, captured_amount::int as captured from transactions where gateway_transaction_id = ?`,
        [gatewayId],
      );
      expect(payments).toEqual([{ id: invoice.transaction_id, status: 'succeeded', captured: 15_000 }]);
      const sales = await sql(`select amount::int as amount, status from sales where invoice_id = ?`, [
        input.invoiceId,
      ]);
      expect(sales).toEqual([{ amount: 15_000, status: 'paid' }]);
      const charges = await sql(
        `select id, status, captured_amount::int as captured from gateway_sim.transactions where reference = ?`,
        [gatewayInvoiceId],
      );
      expect(charges).toEqual([{ id: gatewayId, status: 'succeeded', captured: 15_000 }]);

      const again = await reconcile({ organizationId: s.organizationId, day: today() });
      const second = await report(again.outcome.reports[0]!.id);
      expect(second.lines.find((l: any) => l.kind === 'payment')).toMatchObject({
        gatewayId,
        ours: 15_000,
        theirs: 15_000,
        reason: null,
        repair: null,
      });
      expect(again.outcome.reports[0]).toMatchObject({ status: 'balanced', repairsStarted: 0 });
      expect(second.ours - second.theirs - second.unmatched).toBe(0);
    });
  });
  it('the payment-notice workflow leaves an invoice’s charge it finds unrecorded to the invoice’s workflow', async () => {
    // Its workflow ended between the run's look-up and its signal, say: the notice finds the invoice by
    // the charge's reference, and no row of ours to write to. It changes nothing and gives nothing back.
    const s = await gatewayBilledSubscription({ env, orm, sim });
    const input = await extraChargeInput(env, s, null);
    await runInvoiceWorkflow({ env, bundle, orm, sim }, workers, input, async (handle) => {
      const paid = await sim.payInvoice(await pending(handle));
      const taskQueue = `payment-notice-${uuidv7()}`;
      const worker = await workers.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: bundle,
        activities: createActivities({ orm, gateway: sim }),
      });
      const outcome = await worker.runUntil(
        env.client.workflow.execute(paymentNoticeWorkflow, {
          workflowId: paymentNoticeWorkflowId(paid.transactionId!, 'succeeded'),
          taskQueue,
          args: [paid.transactionId!],
          workflowRunTimeout: '1 hour',
        }),
      );
      expect(outcome).toEqual({ owner: 'invoice', synced: false, refunded: 0 });
      expect(await sql(`select 1 from transactions where gateway_transaction_id = ?`, [paid.transactionId])).toEqual(
        [],
      );
      expect((await sim.getTransaction(paid.transactionId!))!.refundedAmount).toBe(0);
      expect((await handle.query(invoiceStateQuery)).status).toBe('pending');
    });
  });
});
