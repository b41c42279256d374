import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { startChild, workflowInfo } from '@temporalio/workflow';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import { isoDate } from '../domain/periods.ts';
import { CUSTOMER_ID, ORGANIZATION_ID, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { batchTaskQueue } from '../domain/task-queues.ts';
import type { CheckoutPaidNotice, CheckoutSaleVerdict, SubscriptionWorkflow } from '../contracts/subscription.ts';
import { isFailure, subscriptionSales, untilAnswered, type Attempt } from './checkout-activity-proxies.ts';

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
 * Puts a paid renewal or upgrade checkout's sale to the subscription's workflow and returns its
 * verdict: recorded, or refused (the period is paid, the subscription ended or has no running
 * workflow). One Update, sent by an activity (activities/subscription-sale-update.ts).
 */
export function askSubscription(subscriptionId: string, notice: CheckoutPaidNotice): Promise<CheckoutSaleVerdict> {
  return subscriptionSales.putSaleToSubscription({ ...notice, subscriptionId });
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
