import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import {
  invoiceCreationUpdate,
  invoiceNoticeSignal,
  invoiceStateQuery,
  invoiceVoidSignal,
  type GatewayInvoice,
  type InvoiceActivities,
  type InvoiceCardChargeAnswer,
  type InvoiceOutcome,
  type InvoiceRecord,
  type InvoiceRequest,
  type InvoiceSettlement,
  type InvoiceWorkflowInput,
} from '../contracts/invoice.ts';
import { GATEWAY_REFUSAL, PROCESSING_ERROR } from '../domain/failures.ts';
import {
  gatewayInvoiceOutcome,
  INVOICE_CREATION_ABANDONED,
  invoiceChargeAt,
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
 * A manual invoice's card charge: a few quick tries with the invoice's key while the gateway is
 * slow; then the gateway is asked what it did under that key (the lost answer).
 */
const card = proxyActivities<InvoiceActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [GATEWAY_REFUSAL],
  },
});
/** Longer than a gateway call given up on may still run there (the adapters time out within 10 s). */
const LOST_ANSWER_GRACE_MS = 15_000;
/** A charge the gateway never received is tried again this often, until the invoice's deadline. */
const UNREACHED_RETRY_MS = 10 * 60_000;

/** The workflow's own time, as the activities take it. */
const now = () => new Date().toISOString();

/** One run: the invoice asked for, and what its handlers share with it. */
interface InvoiceRun {
  request: InvoiceRequest;
  /** The stored invoice, once recorded. */
  record: InvoiceRecord | null;
  /** Why the creation Update is refused (the gateway refused, or it did not answer in time). */
  refusal: ApplicationFailure | null;
  /** How the run ended when no stored invoice says it. */
  ended: InvoiceOutcome | null;
  /** A callback arrived since the gateway was last asked. */
  noticed: boolean;
  /** The subscription ended: the invoice is voided now rather than at its deadline. */
  voidNow: boolean;
}

/**
 * An extra charge's whole life: created at the gateway (keyed by the invoice), numbered and stored,
 * then pending until the gateway charges it (paid), refuses the charge (failed), or its deadline
 * passes unpaid or its subscription ends (voided at the gateway, so that it can no longer be paid).
 * Callbacks only wake it: the gateway's own record decides, and it is asked once more at the
 * deadline, so a lost callback costs nothing but time. A manual subscription's invoice (`billing:
 * manual`) is numbered and stored at once, and this workflow charges the kept card on its due date.
 */
export async function invoiceWorkflow(input: InvoiceWorkflowInput): Promise<InvoiceOutcome> {
  const { answerBy, gatewayInvoiceId: stored, billing, ...request } = input;
  const run: InvoiceRun = {
    request,
    record: null,
    refusal: null,
    ended: null,
    noticed: stored !== undefined,
    voidNow: false,
  };
  listen(run);
  const deadline = invoiceDeadline(input.dueDate, input.expirationDate).getTime();

  if (billing === 'manual') {
    run.record = await records.recordInvoice({ ...request, gatewayInvoiceId: null, at: now() });
    run.record = await chargeOnDueDate(run, deadline);
  } else {
    const created = stored !== undefined ? { id: stored } : await create(run, answerBy);
    if (created) {
      run.record = await records.recordInvoice({ ...request, gatewayInvoiceId: created.id, at: now() });
      run.record = await settle(run, created.id, deadline);
    }
  }
  await condition(allHandlersFinished);
  return run.ended ?? run.record!.status;
}

/** The creation Update (answered once the invoice is stored or refused), the gateway's notices, the query. */
function listen(run: InvoiceRun): void {
  setHandler(invoiceCreationUpdate, async () => {
    await condition(() => run.record !== null || run.refusal !== null);
    if (run.refusal) throw run.refusal;
    return run.record!;
  });
  setHandler(invoiceNoticeSignal, () => {
    run.noticed = true;
  });
  setHandler(invoiceVoidSignal, () => {
    run.voidNow = true;
  });
  setHandler(invoiceStateQuery, () => ({
    status: run.ended ?? run.record?.status ?? 'creating',
    gatewayInvoiceId: run.record?.gateway_invoice_id ?? null,
  }));
}

/** The gateway's invoice, or null when none is kept (refused, or not made while the request waited). */
async function create(run: InvoiceRun, answerBy: string): Promise<GatewayInvoice | null> {
  const { request } = run;
  const deadline = Date.parse(answerBy);
  if (Date.now() >= deadline) return abandon(run);
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
    run.ended = 'refused';
    run.refusal = ApplicationFailure.nonRetryable(cause.message, GATEWAY_REFUSAL);
    return null;
  }
  abandon(run);
  // A try under way may still create it: what the gateway made once it answers is voided there.
  await creating;
  if (call.made) {
    const late = await gateway.voidGatewayInvoice({ invoiceId: request.invoiceId, gatewayInvoiceId: call.made.id });
    // Charged before it could be voided: the money was taken, so the invoice is kept as paid.
    if (late.invoice.status === 'paid') {
      run.record = await records.recordInvoice({ ...request, gatewayInvoiceId: late.invoice.id, at: now() });
      run.record = await records.settleInvoice(settlement(request.invoiceId, 'paid', late));
      run.ended = null;
    }
  }
  return null;
}

function abandon(run: InvoiceRun): null {
  run.ended = 'abandoned';
  run.refusal = ApplicationFailure.nonRetryable(
    'The gateway did not create the invoice in time; nothing was created',
    INVOICE_CREATION_ABANDONED,
  );
  return null;
}

/** Waits for the gateway's outcome until the deadline, then settles the invoice on what the gateway says. */
async function settle(run: InvoiceRun, gatewayInvoiceId: string, deadline: number): Promise<InvoiceRecord> {
  const { invoiceId } = run.request;
  for (;;) {
    const early = await condition(() => run.noticed || run.voidNow, Math.max(deadline - Date.now(), 1));
    run.noticed = false;
    let state = await gateway.readGatewayInvoice(gatewayInvoiceId);
    let status = gatewayInvoiceOutcome(state.invoice);
    if (status === 'pending' && early && !run.voidNow) continue;
    if (status === 'pending' || status === 'lapsed') {
      // Unpaid at its deadline, lapsed at the gateway, or its subscription ended: voided there, so that it
      // can never be paid late.
      state = await gateway.voidGatewayInvoice({ invoiceId, gatewayInvoiceId });
      status = gatewayInvoiceOutcome(state.invoice);
    }
    return records.settleInvoice(
      settlement(invoiceId, status === 'paid' || status === 'failed' ? status : 'voided', state),
    );
  }
}

function settlement(invoiceId: string, status: Exclude<InvoiceStatus, 'pending'>, state: GatewayInvoiceState) {
  return { invoiceId, status, payment: state.payment, paidAt: state.invoice.paidAt, at: now() };
}

/**
 * A manual invoice: the kept card is charged once, at the start of the due date in Brazil (at once
 * when that is today), unless the subscription ends first (voided, nothing charged). A charge with no
 * answer is looked for under its key after a grace: made, the same call again returns the gateway's
 * first answer (and completes a capture left half-way); never made, it is tried again later, and an
 * invoice the gateway never charged by its deadline, or whose subscription ended meanwhile, is voided.
 */
async function chargeOnDueDate(run: InvoiceRun, deadline: number): Promise<InvoiceRecord> {
  const { invoiceId, subscriptionId, amount, description, dueDate } = run.request;
  const chargeAt = invoiceChargeAt(dueDate).getTime();
  if (Date.now() < chargeAt) await condition(() => run.voidNow, chargeAt - Date.now());
  let made = false;
  for (;;) {
    if (!made && (run.voidNow || Date.now() >= deadline)) {
      return records.settleInvoice({ invoiceId, status: 'voided', payment: null, paidAt: null, at: now() });
    }
    let answer: InvoiceCardChargeAnswer | { refused: string } | null = null;
    try {
      answer = await card.chargeInvoiceCard({ invoiceId, subscriptionId, amount, description });
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      // The gateway refused the call itself: it charged nothing (as a checkout declines it).
      if (cause instanceof ApplicationFailure && cause.type === GATEWAY_REFUSAL) answer = { refused: refusalOf(cause) };
    }
    if (answer) return records.settleInvoice(chargeSettlement(invoiceId, answer));
    await sleep(LOST_ANSWER_GRACE_MS);
    made = made || (await gateway.findInvoiceCharge(invoiceId)) !== null;
    if (!made) await condition(() => run.voidNow, Math.max(Math.min(UNREACHED_RETRY_MS, deadline - Date.now()), 1));
  }
}

/** Why the gateway refused the call (callGateway's first detail: a kept card it will not charge, or another refusal). */
function refusalOf(cause: ApplicationFailure): string {
  const reason: unknown = cause.details?.[0];
  return typeof reason === 'string' ? reason : PROCESSING_ERROR;
}

/** The charge's answer as the invoice's settlement: paid, failed with the reason, or voided uncharged. */
function chargeSettlement(invoiceId: string, answer: InvoiceCardChargeAnswer | { refused: string }): InvoiceSettlement {
  const none = { invoiceId, payment: null, paidAt: null, at: now() };
  if ('refused' in answer) return { ...none, status: 'failed', failureReason: answer.refused };
  if ('notCharged' in answer) return { ...none, status: 'voided' };
  const { payment } = answer;
  if (payment.status !== 'succeeded') return { ...none, status: 'failed', payment };
  return { ...none, status: 'paid', payment, paidAt: payment.confirmedAt ?? now() };
}
