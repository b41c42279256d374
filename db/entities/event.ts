import { defineEntity, p } from '@mikro-orm/core';

/** The outbox and event log: written in the same transaction as the change it describes. */
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    type: p.string(),
    data: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
  },
});
