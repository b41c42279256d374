import { condition, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  attemptNowSignal,
  type AttemptOutcome,
  type WebhookDeliveryActivities,
  type WebhookDeliveryInput,
} from '../contracts/webhook-delivery.ts';
import { retryDelayMs } from '../domain/webhooks.ts';

/**
 * One attempt per activity, never retried by Temporal for the endpoint's sake (a failed HTTP call is an
 * outcome, recorded); our own failures (the database down) are, and may post the same event again,
 * which receivers tell by its webhook-id.
 */
const { attemptWebhookDelivery } = proxyActivities<WebhookDeliveryActivities>({
  startToCloseTimeout: '2 minutes',
  // It heartbeats while waiting for a slot and the endpoint: a dead worker's attempt is retried soon.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/**
 * The first attempt runs inside the run's first workflow task (a local activity): a delivery that
 * succeeds at once is one task from start to end, with no activity task to queue and no second
 * workflow task (what bounds the deliveries a second; docs/performance.md). It gives way to the
 * regular activity when the endpoint's slots are taken (a slow endpoint), so that waiting for them
 * never holds a workflow task.
 */
const { attemptWebhookDelivery: attemptInTask } = proxyLocalActivities<WebhookDeliveryActivities>({
  startToCloseTimeout: '1 minute',
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
    // A redelivery asked for before the first attempt's outcome is in the history is one more attempt:
    // the first attempt runs in the first workflow task, and a signal that comes during it fails that
    // task, so its retry sees the signal before the attempt (run again under the same run and number:
    // recorded once).
    const askedBefore = attempt === 1 ? 0 : asked;
    const retryIn = retryDelayMs(attempt, Math.random());
    const at = Date.now();
    const attemptInput = {
      ...input,
      attempt,
      runId: workflowInfo().runId,
      manual,
      at: new Date(at).toISOString(),
      nextAttemptAt: retryIn === null ? null : new Date(at + retryIn).toISOString(),
    };
    let { outcome } =
      attempt === 1
        ? await attemptInTask({ ...attemptInput, onlyIfFree: true })
        : await attemptWebhookDelivery(attemptInput);
    if (outcome === 'busy') ({ outcome } = await attemptWebhookDelivery(attemptInput));
    // Asked for again while this attempt was under way (even one that succeeded): one more, now.
    manual = asked > askedBefore;
    if (manual && outcome !== 'gone') continue;
    if (outcome !== 'failed' || retryIn === null) return { outcome };
    manual = await condition(() => asked > askedBefore, retryIn);
  }
}
