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
  },
});
