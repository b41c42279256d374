import {
  NOTIFICATIONS_PER_ROUND,
  sendDueNotifications,
  type NotificationSenderDeps,
} from '../activities/notifications.ts';
import { startWakeableLoop, type WakeableLoop } from './wakeable-loop.ts';

/**
 * The worker's notification sender: a round (activities/notifications.ts) when the relay queued
 * notifications, again at once after a full round, and every `pollMs` in any case (retries come due;
 * another worker's relay may have queued them). It runs beside the relay loop, so a slow mail server
 * never holds up webhook deliveries. Failures are logged and retried on the next wake-up.
 */
export function startNotificationSender(deps: NotificationSenderDeps & { pollMs: number }): WakeableLoop {
  return startWakeableLoop(
    deps.pollMs,
    async () => {
      try {
        return { more: (await sendDueNotifications(deps)).claimed === NOTIFICATIONS_PER_ROUND };
      } catch (err) {
        deps.log(`notification sender: round failed (${err instanceof Error ? err.message : String(err)})`);
        return { more: false };
      }
    },
    SENDER_SETTLE_MS,
  );
}

/**
 * A mail may leave a moment after its sale: a round waits this long once woken, so that the sales of a
 * busy second share its claim and its one read (each round costs those two statements).
 */
const SENDER_SETTLE_MS = 250;
