import { proxyActivities } from '@temporalio/workflow';
import type { NotificationActivities, NotificationOutcome, NotificationStart } from '../contracts/notification.ts';

/**
 * Tried again while the mail server is down, for up to a day (a notification later than that tells
 * the merchant nothing the dashboard does not). Each attempt ends within its minute (the SMTP adapter's
 * own timeouts are shorter), so no second attempt runs beside a first still sending.
 */
const { sendNotification } = proxyActivities<NotificationActivities>({
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '1 day',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes' },
});

/**
 * `notification:<event_id>`: mails one new sale or subscription to the organization's members, once.
 * An earlier version's relay started one per mail; notifications are now queued and sent by the
 * workers' sender (activities/notifications.ts), and this stays registered only so that runs started
 * before that finish.
 */
export async function notificationWorkflow(input: NotificationStart): Promise<NotificationOutcome> {
  return sendNotification(input);
}
