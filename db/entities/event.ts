import { defineEntity, p } from '@mikro-orm/core';
import type { Actor } from '../../contracts/actor.ts';

/** The outbox and event log: written in the same transaction as the change it describes. */
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    type: p.string(),
    data: p.json<Record<string, unknown>>(),
    /** Who acted (contracts/actor.ts); null on events recorded before actors were. */
    actor: p.json<Actor>().nullable(),
    createdAt: p.datetime(),
    /**
     * The outbox's order (migration 0019): the writing transaction's id (`xid8`, as text) and an
     * insertion number, both the database's; read only by the relay (db/event/relay.ts).
     */
    tx: p.string().columnType('xid8').defaultRaw('pg_current_xact_id()').lazy(),
    seq: p.bigint('string').defaultRaw("nextval('events_seq_seq'::regclass)").lazy(),
  },
});
