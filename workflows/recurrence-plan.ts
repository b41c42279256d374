import { proxyActivities } from '@temporalio/workflow';
import type { RecurrencePlanActivities } from '../contracts/recurrence-plan.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';

const { createRecurrencePlanForPrice } = proxyActivities<RecurrencePlanActivities>({
  startToCloseTimeout: '30 seconds',
  // The gateway was unreachable when the price was created: keep trying, patiently, for a day. A
  // definite refusal is final: the price is renewed by our own workflow instead.
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: [GATEWAY_REFUSAL],
  },
  scheduleToCloseTimeout: '1 day',
});

/**
 * Creating a recurring price tries the gateway inline (best effort, as the spec says). When that
 * fails, this workflow finishes the job in the background and fills gateway_recurrence_plan_id.
 */
export async function recurrencePlanWorkflow(priceId: string): Promise<string | null> {
  return createRecurrencePlanForPrice(priceId);
}
