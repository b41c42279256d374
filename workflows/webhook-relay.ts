import { proxyActivities } from '@temporalio/workflow';
import type { WebhookRelayActivities } from '../contracts/webhook-relay.ts';

const { relayWebhookEvents } = proxyActivities<WebhookRelayActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * Relays whatever the workers' LISTEN loops have not (a notification lost with a connection, no worker
 * listening): the outbox's cursor makes it the same pass they run, so nothing is relayed twice.
 */
export async function webhookRelayWorkflow(): Promise<{ events: number; deliveries: number }> {
  return relayWebhookEvents();
}
