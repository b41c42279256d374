import {
  NOTIFICATIONS_PER_ROUND,
  sendDueNotifications,
  type NotificationSenderDeps,
} from '../activities/notifications.ts';

export interface NotificationSender {
  /** Notifications were queued: send them now rather than at the next poll. */
  poke(): void;
  stop(): Promise<void>;
}

/**
 * The worker's notification sender: a round (activities/notifications.ts) when the relay queued
 * notifications, again at once after a full round, and every `pollMs` in any case (retries come due;
 * another worker's relay may have queued them). It runs beside the relay loop, so a slow mail server
 * never holds up webhook deliveries. Failures are logged and retried on the next wake-up.
 */
export function startNotificationSender(deps: NotificationSenderDeps & { pollMs: number }): NotificationSender {
  let stopped = false;
  let dirty = true;
  let wake: (() => void) | null = null;
  const poke = () => {
    dirty = true;
    wake?.();
  };

  async function loop(): Promise<void> {
    while (!stopped) {
      if (dirty) {
        dirty = false;
        try {
          if ((await sendDueNotifications(deps)).claimed === NOTIFICATIONS_PER_ROUND) dirty = true;
        } catch (err) {
          deps.log(`notification sender: round failed (${err instanceof Error ? err.message : String(err)})`);
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deps.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
      dirty = true;
    }
  }

  const running = loop();
  return {
    poke,
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
