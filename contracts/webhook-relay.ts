/**
 * What the relay's safety sweep (workflows/webhook-relay.ts) is called by and calls: its Schedule and
 * the activity it runs (WebhookRelayActivities).
 */

/** The relay's safety sweep, run by the `webhook-relay` Schedule (worker/schedules.ts). */
export const WEBHOOK_RELAY_SCHEDULE_ID = 'webhook-relay';

/** The activity the relay workflow runs (activities/webhook-relay.ts). */
export interface WebhookRelayActivities {
  relayWebhookEvents(): Promise<{ events: number; deliveries: number }>;
}
