import { condition, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { AttemptOutcome } from '../activities/webhook-deliveries.ts';
import type { DeliveryStart } from '../activities/webhook-relay.ts';
import { retryDelayMs } from '../domain/webhooks.ts';

export interface WebhookDeliveryInput extends DeliveryStart {
  /** Started by hand (a redelivery): its attempts are marked so. */
  manual?: boolean;
}

/** A redelivery asked for while this delivery waits to try again: it tries now. */
export const attemptNowSignal = defineSignal('attemptNow');

/**
 * One attempt per activity, never retried by Temporal for the endpoint's sake (a failed HTTP call is an
 * outcome, recorded); our own failures (the database down) are, and may post the same event again,
 * which receivers tell by its webhook-id.
 */
const { attemptWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/**
 * `webhook:<event_id>:<endpoint_id>`: delivers one event to one endpoint, trying again on the schedule
 * of domain/webhooks.ts (jittered, about three days) until a 2xx, the last attempt, or the endpoint is
 * deleted or disabled. Every attempt is in the run's history and in webhook_attempts.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<{ outcome: AttemptOutcome }> {
  let now = false;
  setHandler(attemptNowSignal, () => void (now = true));
  for (let attempt = 1; ; attempt++) {
    const retryIn = retryDelayMs(attempt, Math.random());
    const at = Date.now();
    const { outcome } = await attemptWebhookDelivery({
      ...input,
      attempt,
      runId: workflowInfo().runId,
      manual: input.manual ?? false,
      at: new Date(at).toISOString(),
      nextAttemptAt: retryIn === null ? null : new Date(at + retryIn).toISOString(),
    });
    if (outcome !== 'failed' || retryIn === null) return { outcome };
    now = false;
    await condition(() => now, retryIn);
  }
}
