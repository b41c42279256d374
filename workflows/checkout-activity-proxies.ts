import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { CheckoutActivities, PreparedConfirmation } from '../contracts/checkout.ts';
import { CONFIRMATION_REFUSALS, RECORDING_REFUSALS } from '../contracts/checkout.ts';
import { CHECKOUT_NOT_OPEN, type ConfirmCheckoutInput } from '../domain/checkout.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';

/**
 * The activities the checkout workflow (workflows/checkout.ts) runs, with their retry policies, and
 * the workflow's own timings.
 */

/**
 * Database steps: short, idempotent, retried until they succeed unless they refuse outright. Local
 * activities: they run inside the workflow task, which saves two round trips to the server each, and
 * a worker that dies in one leaves the workflow task to time out and run again elsewhere.
 */
export const records = proxyLocalActivities<CheckoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [...CONFIRMATION_REFUSALS, ...RECORDING_REFUSALS],
  },
});

/**
 * Payment calls the buyer waits on: a few quick retries of a call that got no answer, always with
 * the same key, so a retry can never charge twice. A definite refusal is never retried. The timeout
 * is the gateway's own (10 s) plus a margin: a worker that dies mid-call is noticed in that time.
 */
const PAYMENT_OPTIONS = {
  startToCloseTimeout: '12 seconds',
  retry: {
    initialInterval: '300 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '2 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [GATEWAY_REFUSAL, CHECKOUT_NOT_OPEN],
  },
};

/**
 * The confirmation's payment call as a local activity, inside the workflow task that prepares the
 * confirmation and records its sale: one task for the whole confirmation instead of three, and no
 * activity task on the server (docs/decisions/0020-checkout-confirmation-workflow.md). Money stays safe
 * as with an activity: a task lost with its worker runs again elsewhere and repeats the call with the
 * same key, which returns what the gateway did the first time.
 */
export const localPayments = proxyLocalActivities<CheckoutActivities>(PAYMENT_OPTIONS);
/**
 * The same calls as activities: a call that got no answer is asked about by these, whose answers are in
 * the run's history whatever becomes of the workflow task that asked.
 */
export const payments = proxyActivities<CheckoutActivities>(PAYMENT_OPTIONS);

/** Gateway calls whose outcome must be known before anything else happens: retried until the gateway answers. */
export const untilAnswered = proxyActivities<CheckoutActivities>({
  startToCloseTimeout: '12 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [GATEWAY_REFUSAL, CHECKOUT_NOT_OPEN, 'UnknownTransaction'],
  },
});

/**
 * A renewal's or upgrade's sale put to its subscription's workflow: the activity waits on an Update the
 * subscription answers once its run has recorded the sale between its own steps. Retried until it
 * answers: the Update's id is the checkout's, so a retry waits on the same Update.
 */
export const subscriptionSales = proxyActivities<CheckoutActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Grace after a pix/boleto deadline before we ask the gateway, so its clock has passed it too. */
export const DEADLINE_SLACK_MS = 2_000;
/**
 * A call the gateway said it never processed may still have been on its way (held in a network, a
 * queue): after this long, longer than any gateway call may take, each such key is asked once more.
 */
export const LATE_ARRIVAL_WINDOW = '1 minute';

/** One try at paying: the confirmation, what it fixed, and its slot (which keys its gateway calls). */
export interface Attempt {
  request: ConfirmCheckoutInput;
  prepared: PreparedConfirmation;
  slot: number;
}

/** Whether an activity (or local activity, whose failure may arrive unwrapped) failed with `type`. */
export function isFailure(err: unknown, type: string): boolean {
  const failure = err instanceof ActivityFailure ? err.cause : err;
  return failure instanceof ApplicationFailure && failure.type === type;
}
