import { ActivityFailure, ApplicationFailure, proxyActivities, sleep } from '@temporalio/workflow';
import {
  REFUND_GATEWAY_TIMEOUT,
  REFUND_NOT_FOUND,
  type RefundActivities,
  type SettledRefundStatus,
} from '../contracts/refund.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';

/** Longer than an attempt may still be running once the timeout fired (startToClose, the adapter's timeout). */
const LAST_ATTEMPT_GRACE = '2 minutes';

const { refundAtGateway } = proxyActivities<RefundActivities>({
  startToCloseTimeout: '30 seconds',
  // A gateway that is down must not lose a refund the merchant asked for: keep trying, with the same
  // key, for as long as a merchant would wait; a definite refusal is final.
  scheduleToCloseTimeout: REFUND_GATEWAY_TIMEOUT,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: [GATEWAY_REFUSAL, REFUND_NOT_FOUND],
  },
});

const { settleRefund, reconcileRefund } = proxyActivities<RefundActivities>({
  startToCloseTimeout: '30 seconds',
  // The gateway's answer is known (or its books must be read): retried until recorded, never given up.
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: [REFUND_NOT_FOUND],
  },
});

/**
 * One refund from request to settlement; the record is settled by this workflow and nothing else.
 * The gateway call is keyed by the refund, so retries never refund twice. A definite refusal settles
 * it failed. A gateway that gave no answer for REFUND_GATEWAY_TIMEOUT is not taken as a refusal: the
 * refund may have happened, so the gateway's books decide (reconcileRefund).
 */
export async function refundWorkflow(refundId: string): Promise<SettledRefundStatus> {
  try {
    await refundAtGateway(refundId);
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === GATEWAY_REFUSAL) {
      return settleRefund(refundId, { status: 'failed', reason: `gateway: ${cause.message}` });
    }
    if (cause instanceof ApplicationFailure && cause.type === REFUND_NOT_FOUND) throw err;
    // Out of time (or out of retries for any other reason). An attempt started just before the
    // timeout may still reach the gateway: let it end before reading the books.
    await sleep(LAST_ATTEMPT_GRACE);
    return reconcileRefund(refundId);
  }
  return settleRefund(refundId, { status: 'succeeded' });
}
