import { log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Orm } from '../db/orm.ts';
import { plainSql, type Row, type Sql } from '../db/plain-sql.ts';
import {
  isNotifyingEvent,
  NOTIFYING_EVENTS,
  notificationMessageId,
  notificationWorkflowId,
  renderNotification,
  type NotifyingEvent,
} from '../domain/notifications.ts';
import { ORGANIZATION_ID } from '../domain/search-attributes.ts';
import type { Mailer } from '../mailer/port.ts';
import type { notificationWorkflow } from '../workflows/notification.ts';

export interface NotificationStart {
  eventId: string;
  organizationId: string;
}

/** Workflow starts in flight at once during a relay pass. */
const STARTS_AT_ONCE = 20;

/**
 * The relay's part for notifications: of the events it relays, those an organization wants its
 * members mailed about (the event's `notification_settings` key not false: left out, it is on by
 * default; the comparison never fails, so no stored value can stop the relay) and that have a member
 * to mail, each as one `notification:<event_id>` workflow on the relay's queue.
 * Called inside the relay's pass, before its cursor moves: a pass repeated after a crash starts them
 * again, and a start of one already started (running or ended) is a no-op.
 */
export async function startNotifications(
  sql: Sql,
  temporal: Client,
  taskQueue: string,
  events: readonly Row[],
): Promise<number> {
  const candidates = events.filter((e) => isNotifyingEvent(e.type as string));
  if (candidates.length === 0) return 0;
  const wanted = await sql(
    `select e.id, e.organization_id
     from unnest(?::uuid[], ?::uuid[], ?::text[]) with ordinality as e(id, organization_id, setting, n)
     join organizations o on o.id = e.organization_id
     where (o.notification_settings -> e.setting) is distinct from 'false'::jsonb
       and exists (select 1 from organization_members m where m.organization_id = e.organization_id)
     order by e.n`,
    [
      candidates.map((e) => e.id),
      candidates.map((e) => e.organization_id),
      candidates.map((e) => NOTIFYING_EVENTS[e.type as NotifyingEvent]),
    ],
  );
  for (let i = 0; i < wanted.length; i += STARTS_AT_ONCE) {
    await Promise.all(
      wanted.slice(i, i + STARTS_AT_ONCE).map((w) =>
        startNotification(temporal, taskQueue, {
          eventId: w.id as string,
          organizationId: w.organization_id as string,
        }),
      ),
    );
  }
  return wanted.length;
}

async function startNotification(temporal: Client, taskQueue: string, n: NotificationStart): Promise<void> {
  try {
    await temporal.workflow.start<typeof notificationWorkflow>('notificationWorkflow', {
      workflowId: notificationWorkflowId(n.eventId),
      taskQueue,
      args: [n],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: ORGANIZATION_ID, value: n.organizationId }],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

export type NotificationOutcome =
  | { sent: true; messageId: string; recipients: string[] }
  /** Sent by an earlier attempt, or nobody to send it to (the organization has no member now). */
  | { sent: false; messageId: string | null; recipients: string[] };

/**
 * `sendNotification` mails an event to the organization's members at the time of sending (all of them
 * in one message), rendered from the event's payload and the customer and product it names. The
 * event's row in `notifications` is checked before and written after: a retry of an attempt that got
 * that far sends nothing. One that crashed between the send and the write sends the mail again, with
 * the same Message-ID (docs/decisions.md).
 */
export function createNotificationActivities(deps: { orm: Orm; mailer: Mailer; from: string }) {
  const db = plainSql(deps.orm);
  return {
    async sendNotification(input: NotificationStart): Promise<NotificationOutcome> {
      const [done] = await db.query('select message_id, recipients from notifications where event_id = ?', [
        input.eventId,
      ]);
      if (done) return { sent: false, messageId: done.message_id as string, recipients: done.recipients as string[] };
      const [facts] = await db.query(
        `select e.type, e.data, e.created_at, o.name as organization_name, c.name as customer_name,
           c.email as customer_email, p.name as product_name, pr.interval, pr.interval_count
         from events e
         join organizations o on o.id = e.organization_id
         left join customers c on c.id = (e.data ->> 'customer_id')::uuid
         left join products p on p.id = (e.data ->> 'product_id')::uuid
         left join prices pr on pr.id = (e.data ->> 'price_id')::uuid
         where e.id = ? and e.organization_id = ?`,
        [input.eventId, input.organizationId],
      );
      if (!facts || !isNotifyingEvent(facts.type as string)) {
        throw ApplicationFailure.nonRetryable(`Event ${input.eventId} has no notification`, 'NotificationNotFound');
      }
      const members = await db.query(
        `select u.email from organization_members m join users u on u.id = m.user_id
         where m.organization_id = ? order by m.created_at, u.email`,
        [input.organizationId],
      );
      const recipients = members.map((m) => m.email as string);
      if (recipients.length === 0) return { sent: false, messageId: null, recipients };
      const { subject, text } = renderNotification({
        type: facts.type as NotifyingEvent,
        organizationName: facts.organization_name as string,
        data: facts.data as Record<string, unknown>,
        productName: facts.product_name as string | null,
        customerName: facts.customer_name as string | null,
        customerEmail: facts.customer_email as string | null,
        interval: facts.interval as string | null,
        intervalCount: facts.interval_count as number | null,
        createdAt: new Date(facts.created_at as string),
      });
      const messageId = notificationMessageId(input.eventId, deps.from);
      const sent = await deps.mailer.send({
        to: recipients,
        subject,
        text,
        messageId,
        headers: { 'X-Billing-Event-Id': input.eventId, 'X-Billing-Event-Type': facts.type as string },
      });
      await db.query(
        `insert into notifications (event_id, organization_id, recipients, subject, message_id, sent_at)
         values (?, ?, ?::text[], ?, ?, now()) on conflict (event_id) do nothing`,
        [input.eventId, input.organizationId, recipients, subject, messageId],
      );
      log.info(`notification ${input.eventId} (${facts.type}) sent to ${recipients.join(', ')}: ${sent.where}`);
      return { sent: true, messageId, recipients };
    },
  };
}
