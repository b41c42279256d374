import type { Orm } from '../db/orm.ts';
import { plainSql, type PlainSql, type Row, type Sql } from '../db/plain-sql.ts';
import {
  isNotifyingEvent,
  NOTIFICATION_GIVE_UP_MS,
  NOTIFICATION_LEASE_MS,
  NOTIFYING_EVENTS,
  notificationMessageId,
  notificationRetryDelayMs,
  renderNotification,
  type NotifyingEvent,
} from '../domain/notifications.ts';
import type { Mailer } from '../mailer/port.ts';
import type { NotificationOutcome, NotificationStart } from '../contracts/notification.ts';

/**
 * The relay's part for notifications: of the events it relays, those an organization wants its
 * members mailed about (the event's `notification_settings` key not false: left out, it is on by
 * default; the comparison never fails, so no stored value can stop the relay) and that have a member
 * to mail, each queued as one `notification_jobs` row, in the relay's transaction before its cursor
 * moves: one statement per pass, where a workflow per mail cost the checkout a fifth of its throughput
 * (docs/performance.md). A pass repeated after a crash queues nothing twice.
 */
export async function enqueueNotifications(sql: Sql, events: readonly Row[]): Promise<number> {
  const candidates = events.filter((e) => isNotifyingEvent(e.type as string));
  if (candidates.length === 0) return 0;
  const queued = await sql(
    `insert into notification_jobs (event_id, organization_id)
     select e.id, e.organization_id
     from unnest(?::uuid[], ?::uuid[], ?::text[]) as e(id, organization_id, setting)
     join organizations o on o.id = e.organization_id
     where (o.notification_settings -> e.setting) is distinct from 'false'::jsonb
       and exists (select 1 from organization_members m where m.organization_id = e.organization_id)
       and not exists (select 1 from notifications n where n.event_id = e.id)
     on conflict (event_id) do nothing
     returning event_id`,
    [
      candidates.map((e) => e.id),
      candidates.map((e) => e.organization_id),
      candidates.map((e) => NOTIFYING_EVENTS[e.type as NotifyingEvent]),
    ],
  );
  return queued.length;
}

export interface NotificationSenderDeps {
  orm: Orm;
  mailer: Mailer;
  from: string;
  log: (message: string) => void;
}

export interface SendRound {
  /** Notifications claimed this round; a full round (`limit`) means more may be due. */
  claimed: number;
  sent: number;
  failed: number;
}

/** Notifications claimed and sent at once by one round. */
export const NOTIFICATIONS_PER_ROUND = 20;

/**
 * One round of the notification sender: claims the due notifications (moving each one's next attempt a
 * lease ahead, so a sender that dies with it lets another take it then; `skip locked`, so senders in
 * several workers share the queue) and sends them at once. A failed send is tried again on
 * domain/notifications.ts's schedule, until a day after its event.
 */
export async function sendDueNotifications(
  deps: NotificationSenderDeps,
  { at = new Date(), limit = NOTIFICATIONS_PER_ROUND }: { at?: Date; limit?: number } = {},
): Promise<SendRound> {
  const db = plainSql(deps.orm);
  const claimed = await db.query(
    `update notification_jobs j
     set next_attempt_at = ?::timestamptz + ? * interval '1 millisecond', attempts = j.attempts + 1
     from (select event_id from notification_jobs where gave_up_at is null and next_attempt_at <= ?::timestamptz
           order by next_attempt_at limit ? for update skip locked) due
     where j.event_id = due.event_id
     returning j.event_id, j.organization_id, j.attempts`,
    [at, NOTIFICATION_LEASE_MS, at, limit],
  );
  const round: SendRound = { claimed: claimed.length, sent: 0, failed: 0 };
  if (claimed.length === 0) return round;
  const found = await notificationFacts(
    db,
    claimed.map((job) => job.event_id as string),
  );
  const records: SentRecord[] = [];
  const done: string[] = [];
  await Promise.all(
    claimed.map(async (job) => {
      const input = { eventId: job.event_id as string, organizationId: job.organization_id as string };
      try {
        const { record } = await deliver(deps, input, found.get(input.eventId));
        if (record) records.push(record);
        done.push(input.eventId);
        round.sent++;
      } catch (err) {
        round.failed++;
        const why = err instanceof Error ? err.message : String(err);
        deps.log(`notification ${input.eventId}: attempt ${String(job.attempts)} failed (${why})`);
        await db.query(
          `update notification_jobs
           set next_attempt_at = ?::timestamptz + ? * interval '1 millisecond', last_error = ?,
             gave_up_at = case when created_at <= ?::timestamptz - ? * interval '1 millisecond' then ?::timestamptz end
           where event_id = ?`,
          [at, notificationRetryDelayMs(Number(job.attempts)), why, at, NOTIFICATION_GIVE_UP_MS, at, input.eventId],
        );
      }
    }),
  );
  await recordSent(db, records, done);
  return round;
}

/**
 * Mails an event to the organization's members at the time of sending (all of them in one message),
 * rendered from the event's payload and the customer and product it names. The event's row in
 * `notifications` is checked before and written after (with its queue row removed in the same
 * statement, for a whole round at once): a second claim of a sent one sends nothing. One that crashed
 * between the send and the write sends the mail again, with the same Message-ID
 * (docs/decisions/0045-notifications.md).
 */
export async function sendNotification(
  deps: NotificationSenderDeps,
  input: NotificationStart,
): Promise<NotificationOutcome> {
  const db = plainSql(deps.orm);
  const found = await notificationFacts(db, [input.eventId]);
  const { outcome, record } = await deliver(deps, input, found.get(input.eventId));
  await recordSent(db, record ? [record] : [], [input.eventId]);
  return outcome;
}

/** A mail sent, as `notifications` records it. */
interface SentRecord {
  event_id: string;
  organization_id: string;
  recipients: string[];
  subject: string;
  message_id: string;
}

/**
 * The mails sent (their `notifications` rows) and the jobs done (their queue rows removed), in one
 * statement for a whole round: a mail costs no statement of its own.
 */
async function recordSent(db: PlainSql, records: SentRecord[], done: string[]): Promise<void> {
  if (done.length === 0) return;
  await db.query(
    `with recorded as (
       insert into notifications (event_id, organization_id, recipients, subject, message_id, sent_at)
       select r.event_id, r.organization_id, r.recipients, r.subject, r.message_id, now()
       from jsonb_to_recordset(?::jsonb)
         as r(event_id uuid, organization_id uuid, recipients text[], subject text, message_id text)
       on conflict (event_id) do nothing)
     delete from notification_jobs where event_id = any(?::uuid[])`,
    [JSON.stringify(records), done],
  );
}

/**
 * What a notification needs, read for a whole round in one statement (a round is one per few sales).
 * A sale's data names its customer and product as objects (the sale's record), a subscription's by id.
 */
interface NotificationRow {
  type: string;
  data: Record<string, unknown>;
  created_at: string;
  organization_id: string;
  organization_name: string;
  customer_name: string | null;
  customer_email: string | null;
  product_name: string | null;
  interval: string | null;
  interval_count: number | null;
  /** The organization's members' addresses now, in the order they joined. */
  recipients: string[];
  /** Set when it was sent already. */
  sent_message_id: string | null;
  sent_recipients: string[] | null;
}

async function notificationFacts(db: PlainSql, eventIds: string[]): Promise<Map<string, NotificationRow>> {
  const rows = await db.query(
    `select e.id as event_id, e.type, e.data, e.created_at, e.organization_id, o.name as organization_name,
       c.name as customer_name, c.email as customer_email, p.name as product_name, pr.interval, pr.interval_count,
       array(select u.email from organization_members m join users u on u.id = m.user_id
             where m.organization_id = e.organization_id order by m.created_at, u.email) as recipients,
       n.message_id as sent_message_id, n.recipients as sent_recipients
     from events e
     join organizations o on o.id = e.organization_id
     left join customers c on c.id = coalesce(e.data ->> 'customer_id', e.data -> 'customer' ->> 'id')::uuid
     left join products p on p.id = coalesce(e.data ->> 'product_id', e.data -> 'product' ->> 'id')::uuid
     left join prices pr on pr.id = (e.data ->> 'price_id')::uuid
     left join notifications n on n.event_id = e.id
     where e.id = any(?::uuid[])`,
    [eventIds],
  );
  return new Map(rows.map((row) => [row.event_id as string, row as unknown as NotificationRow]));
}

/**
 * Mails one notification; what its record is when it was sent (null when there was nothing to send:
 * sent already, not a notifying event, or no member to mail). It writes nothing: recordSent does.
 */
async function deliver(
  deps: NotificationSenderDeps,
  input: NotificationStart,
  facts: NotificationRow | undefined,
): Promise<{ outcome: NotificationOutcome; record: SentRecord | null }> {
  if (facts?.sent_message_id) {
    const outcome = { sent: false as const, messageId: facts.sent_message_id, recipients: facts.sent_recipients ?? [] };
    return { outcome, record: null };
  }
  const nothing = { outcome: { sent: false as const, messageId: null, recipients: [] }, record: null };
  if (!facts || facts.organization_id !== input.organizationId || !isNotifyingEvent(facts.type)) return nothing;
  const { recipients } = facts;
  if (recipients.length === 0) return nothing;
  const { subject, text } = renderNotification({
    type: facts.type,
    organizationName: facts.organization_name,
    data: facts.data,
    productName: facts.product_name,
    customerName: facts.customer_name,
    customerEmail: facts.customer_email,
    interval: facts.interval,
    intervalCount: facts.interval_count,
    createdAt: new Date(facts.created_at),
  });
  const messageId = notificationMessageId(input.eventId, deps.from);
  const sent = await deps.mailer.send({
    to: recipients,
    subject,
    text,
    messageId,
    headers: { 'X-Billing-Event-Id': input.eventId, 'X-Billing-Event-Type': facts.type },
  });
  deps.log(`notification ${input.eventId} (${facts.type}) sent to ${recipients.join(', ')}: ${sent.where}`);
  const record = {
    event_id: input.eventId,
    organization_id: input.organizationId,
    recipients,
    subject,
    message_id: messageId,
  };
  return { outcome: { sent: true, messageId, recipients }, record };
}
