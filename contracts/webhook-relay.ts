/**
 * What the relay's safety sweep (workflows/webhook-relay.ts) is called by and calls: its Schedule and
 * the activity it runs (WebhookRelayActivities).
 */

/**
 * The relay's safety sweep, run by the Schedule `scheduleIdFor(WEBHOOK_RELAY_JOB, queue)`
 * (worker/schedules.ts).
 */
export const WEBHOOK_RELAY_JOB = 'webhook-relay';

/** The activity the relay workflow runs (activities/webhook-relay.ts). */
export interface WebhookRelayActivities {
  relayWebhookEvents(): Promise<{ events: number; deliveries: number }>;
}
