import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { patched, sleep, startChild, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { paymentKey } from '../domain/checkout.ts';
import { CUSTOMER_ID, ORGANIZATION_ID, PAYMENT_ISSUE, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { batchTaskQueue } from '../domain/task-queues.ts';
import { BATCH_QUEUE_PATCH } from '../contracts/checkout.ts';
import type { SubscriptionWorkflow } from '../contracts/subscription.ts';
import { LATE_ARRIVAL_WINDOW, untilAnswered, type Attempt } from './checkout-activity-proxies.ts';

/** What a checkout's workflow does once its outcome is settled: the subscription it sold, late payments undone. */

/**
 * The subscription's own workflow, which outlives the checkout's (ABANDON): its renewals, dunning and
 * changes from here on. Its id is the subscription's, so it is started once whatever happens.
 */
export async function startSubscriptionWorkflow(
  organizationId: string,
  subscriptionId: string,
  customerId: string,
): Promise<void> {
  try {
    await startChild<SubscriptionWorkflow>('subscriptionWorkflow', {
      workflowId: subscriptionWorkflowId(subscriptionId),
      // Renewals and dunning run on the batch queue; runs recorded before it existed stay on this one.
      ...(patched(BATCH_QUEUE_PATCH) ? { taskQueue: batchTaskQueue(workflowInfo().taskQueue) } : {}),
      args: [{ subscriptionId }],
      parentClosePolicy: 'ABANDON',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: ORGANIZATION_ID, value: organizationId },
        { key: CUSTOMER_ID, value: customerId },
        { key: SUBSCRIPTION_ID, value: subscriptionId },
      ],
    });
  } catch (err) {
    // Already started (a subscription's id is taken once): nothing to do.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * A call the gateway once said it never processed, found done after all: a capture that is not the
 * checkout's recorded payment is refunded, a pix/boleto issued late is cancelled, and the run is
 * flagged for an operator. Never money without a sale.
 */
export async function undoLateArrivals(
  checkoutId: string,
  doubtful: readonly Attempt[],
  recordedPaymentId: string | null,
): Promise<void> {
  await sleep(LATE_ARRIVAL_WINDOW);
  for (const a of doubtful) {
    const late = await untilAnswered.findPayment(paymentKey(checkoutId, a.request.paymentMethod, a.slot));
    if (!late || late.id === recordedPaymentId) continue;
    if (late.capturedAmount > late.refundedAmount) await untilAnswered.refundUnrecordedCapture(checkoutId, late);
    else if (late.status === 'pending') await untilAnswered.cancelPendingPayment(checkoutId, late.id);
    else continue;
    upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: 'late_payment_undone' }]);
  }
}
