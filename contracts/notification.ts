/**
 * What the notification workflow (workflows/notification.ts, kept for runs started by an earlier
 * version) is called by and calls: its input, outcome and the activity it runs (NotificationActivities).
 */

export interface NotificationStart {
  eventId: string;
  organizationId: string;
}

export type NotificationOutcome =
  | { sent: true; messageId: string; recipients: string[] }
  /** Sent by an earlier attempt, or nobody to send it to (the organization has no member now). */
  | { sent: false; messageId: string | null; recipients: string[] };

/** The activity the notification workflow runs (activities/notifications.ts). */
export interface NotificationActivities {
  sendNotification(input: NotificationStart): Promise<NotificationOutcome>;
}
