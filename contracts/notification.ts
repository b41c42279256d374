/**
 * One notification's send (activities/notifications.ts): which event's mail, and what came of it. The
 * sender's rounds (`sendDueNotifications`) send each claimed event this way.
 */

export interface NotificationStart {
  eventId: string;
  organizationId: string;
}

export type NotificationOutcome =
  | { sent: true; messageId: string; recipients: string[] }
  /** Sent by an earlier attempt, or nobody to send it to (the organization has no member now). */
  | { sent: false; messageId: string | null; recipients: string[] };
