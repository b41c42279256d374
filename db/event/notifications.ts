import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../contracts/actor.ts';
import { kyselyOf } from '../kysely.ts';

/**
 * The notification queue (`notification_jobs`, one row per event waiting to be mailed) and the mails
 * sent (`notifications`, one per event): a sent event's queue row goes in the statement that records it.
 */

/** Of these events, those already mailed. */
export async function sentEventIds(em: EntityManager, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const rows = await kyselyOf(em)
    .selectFrom('notifications')
    .select('eventId')
    .where('eventId', 'in', [...eventIds])
    .execute();
  return new Set(rows.map((r) => r.eventId));
}

/** Queues the events' notifications (none twice); the ids queued now. */
export async function enqueueJobs(
  tx: EntityManager,
  jobs: readonly { eventId: string; organizationId: string }[],
): Promise<string[]> {
  if (jobs.length === 0) return [];
  const rows = await kyselyOf(tx)
    .insertInto('notification_jobs')
    .values(jobs.map((j) => ({ eventId: j.eventId, organizationId: j.organizationId })))
    .onConflict((oc) => oc.column('eventId').doNothing())
    .returning('eventId')
    .execute();
  return rows.map((r) => r.eventId);
}

/**
 * Claims up to `limit` due jobs: each one's next attempt moved a lease ahead (a sender that dies with
 * it lets another take it then), `skip locked` so senders in several workers share the queue.
 */
export async function claimDueJobs(
  em: EntityManager,
  at: Date,
  leaseMs: number,
  limit: number,
): Promise<{ eventId: string; organizationId: string; attempts: number }[]> {
  const db = kyselyOf(em);
  return db
    .updateTable('notification_jobs')
    .set((eb) => ({ nextAttemptAt: new Date(at.getTime() + leaseMs), attempts: eb('attempts', '+', 1) }))
    .where('eventId', 'in', (eb) =>
      eb
        .selectFrom('notification_jobs')
        .select('eventId')
        .where('gaveUpAt', 'is', null)
        .where('nextAttemptAt', '<=', at)
        .orderBy('nextAttemptAt')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['eventId', 'organizationId', 'attempts'])
    .execute();
}

/** A failed send: tried again after `retryMs`, or given up for good once its event is `giveUpMs` old. */
export async function rescheduleJob(
  em: EntityManager,
  eventId: string,
  r: { at: Date; retryMs: number; giveUpMs: number; error: string },
): Promise<void> {
  await kyselyOf(em)
    .updateTable('notification_jobs')
    .set((eb) => ({
      nextAttemptAt: new Date(r.at.getTime() + r.retryMs),
      lastError: r.error,
      gaveUpAt: eb
        .case()
        .when('createdAt', '<=', new Date(r.at.getTime() - r.giveUpMs))
        .then(eb.cast<Date>(eb.val(r.at), 'timestamptz'))
        .else(null)
        .end(),
    }))
    .where('eventId', '=', eventId)
    .execute();
}

/** A mail sent, as `notifications` records it. */
export interface SentRecord {
  eventId: string;
  organizationId: string;
  recipients: string[];
  subject: string;
  messageId: string;
}

/** The mails sent and the jobs done (their queue rows removed), in one statement for a whole round. */
export async function recordSent(em: EntityManager, records: readonly SentRecord[], done: readonly string[]) {
  if (done.length === 0) return;
  const db = kyselyOf(em);
  const removeDone = db.deleteFrom('notification_jobs').where('eventId', 'in', [...done]);
  if (records.length === 0) {
    await removeDone.execute();
    return;
  }
  await db
    .with('recorded', (w) =>
      w
        .insertInto('notifications')
        .values(records.map((r) => ({ ...r, sentAt: new Date() })))
        .onConflict((oc) => oc.column('eventId').doNothing())
        .returning('eventId'),
    )
    .deleteFrom('notification_jobs')
    .where('eventId', 'in', [...done])
    .execute();
}

/** What a notification says of its event, and whether (and to whom) it was mailed already. */
export interface NotifiedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  actor: Actor | null;
  createdAt: Date;
  organizationId: string;
  sentMessageId: string | null;
  sentRecipients: string[] | null;
}

export async function notifiedEvents(em: EntityManager, eventIds: readonly string[]): Promise<NotifiedEvent[]> {
  if (eventIds.length === 0) return [];
  return kyselyOf(em)
    .selectFrom('events as e')
    .leftJoin('notifications as n', 'n.eventId', 'e.id')
    .select([
      'e.id',
      'e.type',
      'e.data',
      'e.actor',
      'e.createdAt',
      'e.organizationId',
      'n.messageId as sentMessageId',
      'n.recipients as sentRecipients',
    ])
    .where('e.id', 'in', [...eventIds])
    .execute();
}
