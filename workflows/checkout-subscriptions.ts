import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { condition, getExternalWorkflowHandle, startChild, workflowInfo } from '@temporalio/workflow';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import { isoDate } from '../domain/periods.ts';
import { CUSTOMER_ID, ORGANIZATION_ID, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { batchTaskQueue } from '../domain/task-queues.ts';
import {
  checkoutPaidSignal,
  type CheckoutPaidNotice,
  type CheckoutSaleVerdict,
  type SubscriptionWorkflow,
} from '../contracts/subscription.ts';
import { isFailure, untilAnswered, type Attempt } from './checkout-activity-proxies.ts';

/**
 * What a checkout's sale does to subscriptions: the gateway's subscription of a gateway-billed price,
 * the new subscription's own workflow, and a renewal's or upgrade's sale put to the subscription's
 * workflow, its only writer.
 */

/** The gateway's subscription of a gateway-billed price; null when the gateway refused it. */
export async function gatewaySubscription(
  checkoutId: string,
  a: Attempt,
  cardTokenId: string,
  periodEnd: Date,
): Promise<string | null> {
  try {
    return await untilAnswered.createGatewaySubscription({
      checkoutId,
      priceId: a.prepared.priceId,
      cardTokenId,
      buyer: a.prepared.buyer,
      startDate: isoDate(periodEnd),
    });
  } catch (err) {
    // Refused by the gateway: our own renewals bill the subscription instead
    // (docs/decisions/0022-checkout-payment-rules.md).
    if (!isFailure(err, GATEWAY_REFUSAL)) throw err;
    return null;
  }
}

/**
 * Tells the subscription's workflow of a paid renewal or upgrade checkout and waits for its answer
 * (`verdict`, set by the checkout's subscriptionSaleVerdict handler): recorded, or refused (the period
 * is paid, the subscription ended). A subscription with no running workflow has ended.
 */
export async function askSubscription(
  subscriptionId: string,
  notice: CheckoutPaidNotice,
  verdict: () => CheckoutSaleVerdict | null,
): Promise<CheckoutSaleVerdict> {
  try {
    await getExternalWorkflowHandle(subscriptionWorkflowId(subscriptionId)).signal(checkoutPaidSignal, notice);
  } catch {
    return { accepted: false, reason: 'the subscription has no running workflow' };
  }
  await condition(() => verdict() !== null);
  return verdict()!;
}

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
      // Renewals and dunning run on the batch queue, never in the way of a buyer's confirmation.
      taskQueue: batchTaskQueue(workflowInfo().taskQueue),
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
