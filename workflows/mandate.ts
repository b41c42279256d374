import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import {
  MANDATE_EXISTS,
  mandateAnswerSignal,
  mandateCreationUpdate,
  mandateWithdrawUpdate,
  type MandateActivities,
  type MandateOutcome,
  type MandateRecord,
  type MandateSight,
  type MandateWorkflowInput,
} from '../contracts/mandate.ts';
import { mandateApprovedSignal } from '../contracts/subscription.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import { MANDATE_EXPIRY_GRACE_MS, MANDATE_REREAD_MS } from '../domain/mandate-requests.ts';
import { isMandateFinal } from '../domain/pix-automatico.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';

/** The gateway's creation: retried under its key until the gateway answers; a refusal is final. */
const gateway = proxyActivities<MandateActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [GATEWAY_REFUSAL, MANDATE_EXISTS, 'MandateNotAllowed', 'NoPixAutomatico'],
  },
});

/** Reads and withdrawals: retried until they succeed (a lost answer costs only time). */
const records = proxyActivities<MandateActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes', nonRetryableErrorTypes: ['UnknownMandate'] },
});

/**
 * A mandate asked of an existing subscription's payer (decision 0098): journey 1 (a request pushed to
 * their bank, expiring at `answerBy`) or 2 (a QR code that only authorizes). It creates the mandate at
 * the gateway and records it at once in its `created` state (the creation Update answers with it),
 * then waits for the payer's answer: the gateway's notices wake it, and it reads the gateway itself
 * every MANDATE_REREAD_MS and at the deadline. Approved, it tells the subscription's workflow, which
 * bills its next periods through it; rejected or expired, the row and its `mandate.*` events say so and
 * the subscription keeps its billing. A mandate still waiting a grace after the deadline is withdrawn by
 * the receiver (cancelled), as is an approved one whose subscription has ended.
 */
export async function mandateWorkflow(input: MandateWorkflowInput): Promise<MandateOutcome> {
  const run = {
    created: null as MandateRecord | null,
    refusal: null as ApplicationFailure | null,
    noticed: false,
    withdrawn: false,
    outcome: null as MandateOutcome | null,
  };
  setHandler(mandateCreationUpdate, async () => {
    await condition(() => run.created !== null || run.refusal !== null);
    if (run.refusal) throw run.refusal;
    return run.created!;
  });
  setHandler(mandateAnswerSignal, () => {
    run.noticed = true;
  });
  setHandler(mandateWithdrawUpdate, async () => {
    run.withdrawn = true;
    await condition(() => run.outcome !== null);
    return run.outcome!;
  });

  try {
    run.created = await gateway.requestMandate({ ...input, at: new Date().toISOString() });
  } catch (err) {
    if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure)) throw err;
    run.refusal = ApplicationFailure.nonRetryable(err.cause.message, err.cause.type);
    run.outcome = 'not_created';
    await condition(allHandlersFinished);
    return 'not_created';
  }
  const seen = await answerOf(input, run);
  run.outcome = seen.status === 'approved' ? await handOver(input) : seen.status;
  await condition(allHandlersFinished);
  return run.outcome;
}

/**
 * Waits for the payer's answer: approved or final as the gateway reports it, or withdrawn a grace after
 * the deadline when the gateway still keeps it waiting, or at once when the customer withdraws it.
 */
async function answerOf(
  input: MandateWorkflowInput,
  run: { noticed: boolean; withdrawn: boolean },
): Promise<MandateSight> {
  const deadline = Date.parse(input.answerBy);
  for (;;) {
    // The next read: at the deadline (the request's expiry), its grace, or the periodic one.
    const marks = [deadline, deadline + MANDATE_EXPIRY_GRACE_MS].filter((at) => at > Date.now());
    const next = Math.min(Date.now() + MANDATE_REREAD_MS, ...marks);
    await condition(() => run.noticed || run.withdrawn, Math.max(next - Date.now(), 1));
    run.noticed = false;
    if (run.withdrawn) {
      log.info('The customer withdrew the mandate before the payer answered', { mandateId: input.mandateId });
      return records.withdrawMandate(input.mandateId);
    }
    const seen = await records.readRequestedMandate(input.mandateId);
    if (seen.status === 'approved' || isMandateFinal(seen.status)) return seen;
    if (Date.now() >= deadline + MANDATE_EXPIRY_GRACE_MS) {
      log.info('The payer did not answer the mandate in time: withdrawn', { mandateId: input.mandateId });
      return records.withdrawMandate(input.mandateId);
    }
  }
}

/** The subscription adopts the approved mandate; one that has ended meanwhile has no use for it. */
async function handOver(input: MandateWorkflowInput): Promise<MandateOutcome> {
  try {
    await getExternalWorkflowHandle(subscriptionWorkflowId(input.subscriptionId)).signal(mandateApprovedSignal);
    return 'approved';
  } catch (err) {
    log.info('The subscription has ended: its approved mandate is withdrawn', { error: String(err) });
    return (await records.withdrawMandate(input.mandateId)).status;
  }
}
