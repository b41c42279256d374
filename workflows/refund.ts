import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

export const refundWorkflowId = (refundId: string) => `refund:${refundId}`;

const { executeRefund } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // A gateway that is down must not lose a refund the merchant asked for: keep trying, with the same key.
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
  scheduleToCloseTimeout: '3 days',
});

/** One refund from request to settlement. The gateway call is keyed by the refund, so retries never refund twice. */
export async function refundWorkflow(refundId: string): Promise<'succeeded' | 'failed'> {
  return executeRefund(refundId);
}
