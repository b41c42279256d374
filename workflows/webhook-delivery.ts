import { condition, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { AttemptOutcome } from '../activities/webhook-deliveries.ts';
import type { DeliveryStart } from '../activities/webhook-relay.ts';
import { retryDelayMs } from '../domain/webhooks.ts';

export interface WebhookDeliveryInput extends DeliveryStart {
  /** Started by hand (a redelivery): its attempts are marked so. */
  manual?: boolean;
  /** The redelivery that started this run, whose attemptNow signal (sent with the start) it ignores. */
  requestId?: string;
}

/** A redelivery (its request id) asked for while this delivery is on: it tries (again) now. */
export const attemptNowSignal = defineSignal<[string]>('attemptNow');

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
  // Redeliveries asked for by hand while this run is on (signalWithStart also signals a new run).
  let asked = 0;
  setHandler(attemptNowSignal, (requestId) => {
    if (requestId !== input.requestId) asked++;
  });
  let manual = input.manual ?? false;
  for (let attempt = 1; ; attempt++) {
    const askedBefore = asked;
    const retryIn = retryDelayMs(attempt, Math.random());
    const at = Date.now();
    const { outcome } = await attemptWebhookDelivery({
      ...input,
      attempt,
      runId: workflowInfo().runId,
      manual,
      at: new Date(at).toISOString(),
      nextAttemptAt: retryIn === null ? null : new Date(at + retryIn).toISOString(),
    });
    // Asked for again while this attempt was under way (even one that succeeded): one more, now.
    manual = asked > askedBefore;
    if (manual && outcome !== 'gone') continue;
    if (outcome !== 'failed' || retryIn === null) return { outcome };
    manual = await condition(() => asked > askedBefore, retryIn);
  }
}
