import {
  ActivityFailure,
  ApplicationFailure,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { PreparedConfirmation } from '../activities/checkout-records.ts';
import {
  CHECKOUT_NOT_OPEN,
  CONFIRMATION_INVALID,
  DISCOUNT_REJECTED,
  type CheckoutStatus,
  type ConfirmCheckoutInput,
  type ConfirmCheckoutResult,
} from '../domain/checkout.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';

/**
 * What the checkout workflow (workflows/checkout.ts) is called by and calls: its id, input and state,
 * its Update, signal and query, the activities it runs with their retry policies, and its patches.
 */

/** Workflow id of a checkout: one run per checkout, started when the checkout is created. */
export const checkoutWorkflowId = (checkoutId: string) => `checkout:${checkoutId}`;

export interface CheckoutWorkflowInput {
  checkoutId: string;
  organizationId: string;
  /**
   * Set by whoever starts the workflow of a checkout it has just opened: open until then. Without it
   * the workflow reads the checkout first (one step more before a confirmation can be taken).
   */
  openUntil?: string;
}

export interface PaymentUpdate {
  transactionId: string;
  status: string;
}

export interface CheckoutState {
  status: CheckoutStatus;
  /** Confirmations refused so far (declines and payment errors); MAX_DECLINED_CONFIRMATIONS ends the checkout. */
  declined: number;
  confirming: boolean;
  /** A payment call got no answer and the gateway has not yet said what became of it. */
  processing: boolean;
  declineReason: string | null;
  pendingTransactionId: string | null;
  customerId: string | null;
  subscriptionId: string | null;
}

export const confirmCheckoutUpdate = defineUpdate<ConfirmCheckoutResult, [ConfirmCheckoutInput]>('confirmCheckout');
export const paymentUpdatedSignal = defineSignal<[PaymentUpdate]>('paymentUpdated');
export const checkoutStateQuery = defineQuery<CheckoutState>('checkoutState');

export const CONFIRMATION_REFUSALS = [CHECKOUT_NOT_OPEN, CONFIRMATION_INVALID, DISCOUNT_REJECTED];
/** Integrity failures of the recording: permanent, so the capture is given back instead of retried. */
export const RECORDING_REFUSALS = ['CheckoutNotFound', 'MissingCustomerEmail', 'RecordingRejected'];

/**
 * Database steps: short, idempotent, retried until they succeed unless they refuse outright. Local
 * activities: they run inside the workflow task, which saves two round trips to the server each, and
 * a worker that dies in one leaves the workflow task to time out and run again elsewhere.
 */
export const records = proxyLocalActivities<Activities>({
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
export const payments = proxyActivities<Activities>({
  startToCloseTimeout: '12 seconds',
  retry: {
    initialInterval: '300 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '2 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [GATEWAY_REFUSAL, CHECKOUT_NOT_OPEN],
  },
});

/** Gateway calls whose outcome must be known before anything else happens: retried until the gateway answers. */
export const untilAnswered = proxyActivities<Activities>({
  startToCloseTimeout: '12 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [GATEWAY_REFUSAL, CHECKOUT_NOT_OPEN, 'UnknownTransaction'],
  },
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

export const SUBSCRIPTION_WORKFLOW_PATCH = 'subscription-workflow';
export const RENEWAL_SIGNAL_PATCH = 'renewal-checkout-signal';
export const UPGRADE_PATCH = 'upgrade-checkout';
export const BATCH_QUEUE_PATCH = 'subscription-batch-queue';
export const RESUME_PAYMENT_PATCH = 'checkout-resume-pending-payment';
export const RESUME_IN_FLIGHT_PATCH = 'checkout-resume-payment-in-flight';

/** Whether an activity (or local activity, whose failure may arrive unwrapped) failed with `type`. */
export function isFailure(err: unknown, type: string): boolean {
  const failure = err instanceof ActivityFailure ? err.cause : err;
  return failure instanceof ApplicationFailure && failure.type === type;
}
