import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import {
  invoiceCreationUpdate,
  invoiceNoticeSignal,
  invoiceStateQuery,
  type GatewayInvoice,
  type InvoiceActivities,
  type InvoiceOutcome,
  type InvoiceRecord,
  type InvoiceWorkflowInput,
} from '../contracts/invoice.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import {
  gatewayInvoiceOutcome,
  INVOICE_CREATION_ABANDONED,
  invoiceDeadline,
  type InvoiceStatus,
} from '../domain/invoices.ts';
import type { GatewayInvoiceState } from '../contracts/invoice.ts';

/** Gateway calls: retried with the same key until the gateway answers; a definite refusal is final. */
const gateway = proxyActivities<InvoiceActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: [GATEWAY_REFUSAL] },
});

/** Database steps: retried until they succeed. */
const records = proxyActivities<InvoiceActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['InvoiceNotFound'] },
});

/**
 * An extra charge's whole life: created at the gateway (keyed by the invoice), numbered and stored,
 * then pending until the gateway charges it (paid), refuses the charge (failed), or its deadline
 * passes unpaid (voided at the gateway, so that it can no longer be paid). Callbacks only wake it:
 * the gateway's own record decides, and it is asked once more at the deadline, so a lost callback
 * costs nothing but time.
 */
export async function invoiceWorkflow(input: InvoiceWorkflowInput): Promise<InvoiceOutcome> {
  const { answerBy, gatewayInvoiceId: stored, ...request } = input;
  const { invoiceId } = request;
  let record: InvoiceRecord | null = null;
  let refusal: ApplicationFailure | null = null;
  let ended: InvoiceOutcome | null = null;
  let noticed = stored !== undefined;
  const now = () => new Date().toISOString();

  setHandler(invoiceCreationUpdate, async () => {
    await condition(() => record !== null || refusal !== null);
    if (refusal) throw refusal;
    return record!;
  });
  setHandler(invoiceNoticeSignal, () => {
    noticed = true;
  });
  setHandler(invoiceStateQuery, () => ({
    status: ended ?? record?.status ?? 'creating',
    gatewayInvoiceId: record?.gateway_invoice_id ?? null,
  }));

  const created = stored !== undefined ? { id: stored } : await create();
  if (created) {
    record = await records.recordInvoice({ ...request, gatewayInvoiceId: created.id, at: now() });
    record = await settle(created.id, invoiceDeadline(input.dueDate, input.expirationDate).getTime());
  }
  await condition(allHandlersFinished);
  return ended ?? record!.status;

  /** The gateway's invoice, or null when none is kept (refused, or not made while the request waited). */
  async function create(): Promise<GatewayInvoice | null> {
    const deadline = Date.parse(answerBy);
    if (Date.now() >= deadline) return abandon();
    const call: { made?: GatewayInvoice; failure?: unknown } = {};
    const creating = gateway.createGatewayInvoice(request).then(
      (invoice) => (call.made = invoice),
      (err: unknown) => (call.failure = err ?? new Error('creation failed')),
    );
    if (
      await condition(() => call.made !== undefined || call.failure !== undefined, Math.max(deadline - Date.now(), 1))
    ) {
      if (call.made) return call.made;
      const cause = call.failure instanceof ActivityFailure ? call.failure.cause : undefined;
      if (!(cause instanceof ApplicationFailure) || cause.type !== GATEWAY_REFUSAL) throw call.failure;
      ended = 'refused';
      refusal = ApplicationFailure.nonRetryable(cause.message, GATEWAY_REFUSAL);
      return null;
    }
    abandon();
    // A try under way may still create it: what the gateway made once it answers is voided there.
    await creating;
    if (call.made) {
      const late = await gateway.voidGatewayInvoice({ invoiceId, gatewayInvoiceId: call.made.id });
      // Charged before it could be voided: the money was taken, so the invoice is kept as paid.
      if (late.invoice.status === 'paid') {
        record = await records.recordInvoice({ ...request, gatewayInvoiceId: late.invoice.id, at: now() });
        record = await records.settleInvoice(settlement('paid', late));
        ended = null;
      }
    }
    return null;
  }

  function abandon(): null {
    ended = 'abandoned';
    refusal = ApplicationFailure.nonRetryable(
      'The gateway did not create the invoice in time; nothing was created',
      INVOICE_CREATION_ABANDONED,
    );
    return null;
  }

  /** Waits for the gateway's outcome until the deadline, then settles the invoice on what the gateway says. */
  async function settle(gatewayInvoiceId: string, deadline: number): Promise<InvoiceRecord> {
    for (;;) {
      const early = await condition(() => noticed, Math.max(deadline - Date.now(), 1));
      noticed = false;
      let state = await gateway.readGatewayInvoice(gatewayInvoiceId);
      let status = gatewayInvoiceOutcome(state.invoice);
      if (status === 'pending' && early) continue;
      if (status === 'pending' || status === 'lapsed') {
        // Unpaid at its deadline (or lapsed at the gateway): voided there, so that it can never be paid late.
        state = await gateway.voidGatewayInvoice({ invoiceId, gatewayInvoiceId });
        status = gatewayInvoiceOutcome(state.invoice);
      }
      return records.settleInvoice(settlement(status === 'paid' || status === 'failed' ? status : 'voided', state));
    }
  }

  function settlement(status: Exclude<InvoiceStatus, 'pending'>, state: GatewayInvoiceState) {
    return { invoiceId, status, payment: state.payment, paidAt: state.invoice.paidAt, at: now() };
  }
}
