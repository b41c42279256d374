import { recurringBillingOf } from '../gateway/capabilities.ts';
import { WorkflowNotFoundError } from '@temporalio/client';
import { subscriptionIdOfGateway } from '../db/subscription/rows.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { ApiError } from '../use-cases/errors.ts';
import { gatewayInvoiceSignal } from '../contracts/subscription.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * An `invoice.updated` notice about a cycle of a gateway subscription's recurrence: the invoice is
 * read at the gateway (the notice itself carries no subscription) and the workflow of our
 * subscription billed by it is told; the workflow asks the gateway what happened. False when the
 * invoice is not a recurrence cycle of one of our subscriptions.
 */
export async function signalRecurrenceInvoice(deps: RouteDeps, invoiceId: string): Promise<boolean> {
  const invoice = await recurringBillingOf(deps.gateway)
    .getInvoice(invoiceId)
    .catch(() => {
      // Unanswered now: the gateway sends the notice again later.
      throw new ApiError(503, 'temporarily_unavailable', 'Callback not processed; retry later');
    });
  if (!invoice || invoice.cycle === null) return false;
  const subscriptionId = await subscriptionIdOfGateway(deps.orm.em.fork(), invoice.subscriptionId);
  if (!subscriptionId) return false;
  try {
    await deps.temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId)).signal(gatewayInvoiceSignal);
  } catch (err) {
    // An ended subscription has nothing left to learn; anything else: the gateway retries later.
    if (!(err instanceof WorkflowNotFoundError)) {
      throw new ApiError(503, 'temporarily_unavailable', 'Callback not processed; retry later');
    }
  }
  return true;
}
