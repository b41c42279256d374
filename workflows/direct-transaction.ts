import { ActivityFailure, ApplicationFailure, proxyActivities, sleep } from '@temporalio/workflow';
import {
  GATEWAY_UNAVAILABLE,
  type DirectTransactionActivities,
  type DirectTransactionInput,
  type DirectTransactionResult,
} from '../contracts/direct-transaction.ts';
import type { GatewayTransaction } from '../contracts/gateway-records.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';

/** Longer than a gateway call we gave up on may still be running there (the adapter's 10 s timeout). */
const LOST_ANSWER_GRACE = '15 seconds';

const { chargeDirectTransaction } = proxyActivities<DirectTransactionActivities>({
  startToCloseTimeout: '15 seconds',
  // A few quick tries while the buyer waits, all with the same key; then the gateway is asked what it did.
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [GATEWAY_REFUSAL],
  },
});

const { findDirectTransaction, recordDirectTransaction } = proxyActivities<DirectTransactionActivities>({
  startToCloseTimeout: '30 seconds',
  // A charge the gateway made must be found and recorded, however long the gateway or the database
  // take to come back: retried until they succeed.
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [GATEWAY_REFUSAL],
  },
});

/**
 * A direct transaction from request to record: charge (card token) or issue the pix, then record it.
 * A charge whose answer was lost is looked up by its key before anything is answered, so a payment
 * the gateway took is always recorded, and one it never saw is reported as not made.
 */
export async function directTransactionWorkflow(input: DirectTransactionInput): Promise<DirectTransactionResult> {
  let payment: GatewayTransaction | null;
  try {
    payment = await chargeDirectTransaction(input);
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === GATEWAY_REFUSAL) {
      return { outcome: 'refused', reason: cause.message };
    }
    // No answer after the quick tries: the gateway may or may not have charged. Let a call still
    // under way there finish, then ask.
    await sleep(LOST_ANSWER_GRACE);
    payment = await findDirectTransaction(input.organizationId, input.idempotencyKey);
    if (!payment) {
      throw ApplicationFailure.nonRetryable('The payment gateway did not take the payment', GATEWAY_UNAVAILABLE);
    }
  }
  await recordDirectTransaction(input.organizationId, payment, input.customerEmail);
  return { outcome: 'charged', payment };
}
