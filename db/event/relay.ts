import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/**
 * The outbox relay's reads and its cursor (`webhook_relay`, one row): events in (tx, seq) order, only
 * from transactions older than every one still running, so none committed later lands behind the cursor.
 */

export interface OutboxCursor {
  tx: string;
  seq: string;
}

/** The cursor, locked until the pass's transaction ends: passes serialize on it. */
export async function lockCursor(tx: EntityManager): Promise<OutboxCursor | undefined> {
  return kyselyOf(tx)
    .selectFrom('webhook_relay')
    .select(['tx', 'seq'])
    .where('id', '=', 1)
    .forUpdate()
    .executeTakeFirst();
}

export async function moveCursor(tx: EntityManager, to: OutboxCursor): Promise<void> {
  await kyselyOf(tx)
    .updateTable('webhook_relay')
    .set((eb) => ({ tx: to.tx, seq: to.seq, updatedAt: eb.fn<Date>('now') }))
    .where('id', '=', 1)
    .execute();
}

export interface OutboxEvent extends OutboxCursor {
  id: string;
  organizationId: string;
  type: string;
  data: Record<string, unknown>;
}

/** Up to `limit` events past the cursor that no running transaction can still precede. */
export async function eventsAfter(tx: EntityManager, cursor: OutboxCursor, limit: number): Promise<OutboxEvent[]> {
  return kyselyOf(tx)
    .selectFrom('events')
    .select(['id', 'organizationId', 'type', 'data', 'tx', 'seq'])
    .where((eb) =>
      eb.and([
        eb(eb.refTuple('tx', 'seq'), '>', eb.tuple(cursor.tx, cursor.seq)),
        eb('tx', '<', eb.fn<string>('pg_snapshot_xmin', [eb.fn('pg_current_snapshot')])),
      ]),
    )
    .orderBy('tx')
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/**
 * The organization's enabled endpoints that want each event: those of its type, those of every type
 * (no types listed), and for the test event `pingType` any (the caller keeps only the one it names).
 */
export async function subscribedEndpoints(
  tx: EntityManager,
  eventIds: readonly string[],
  pingType: string,
): Promise<{ eventId: string; endpointId: string }[]> {
  if (eventIds.length === 0) return [];
  return kyselyOf(tx)
    .selectFrom('events as e')
    .innerJoin('webhook_endpoints as w', (join) =>
      join
        .onRef('w.organizationId', '=', 'e.organizationId')
        .on('w.enabled', '=', true)
        .on('w.deletedAt', 'is', null)
        .on((eb) =>
          eb.or([
            eb(eb.fn('cardinality', ['w.eventTypes']), '=', 0),
            eb('e.type', '=', eb.fn.any('w.eventTypes')),
            eb('e.type', '=', pingType),
          ]),
        ),
    )
    .select(['e.id as eventId', 'w.id as endpointId'])
    .where('e.id', 'in', [...eventIds])
    .execute();
}
