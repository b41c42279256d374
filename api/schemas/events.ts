import { z } from 'zod';
import { eventEnvelope, type EventRow } from '../../db/events.ts';
import { listQuery } from '../../use-cases/schemas/common.ts';

/** Every event type the API writes (the dashboard's filter lists them). */
export { EVENT_TYPES } from '../../db/events.ts';

/** `customer.created` exactly, or every type under a prefix with `.*` (`customer.*`). */
export const eventTypeFilter = z
  .string()
  .max(100)
  .regex(
    /^[a-z_]+(\.[a-z_]+)*(\.\*)?$/,
    'must be an event type (customer.created) or a prefix ending in .* (customer.*)',
  );

const instant = z.iso.datetime({ offset: true });

export const listEventsQuery = listQuery(['created_at']).extend({
  type: eventTypeFilter.optional(),
  created_after: instant.optional().meta({ description: 'Events created at or after this instant' }),
  created_before: instant.optional().meta({ description: 'Events created before this instant' }),
  object_id: z
    .string()
    .max(64)
    .optional()
    .meta({ description: 'Events about this record: its id in the payload (data.id)' }),
});

export const eventIdParams = z.object({ id: z.string().max(64) });

/** Who made the change (contracts/actor.ts). */
export const actorSchema = z
  .object({
    type: z.enum(['api_key', 'access_token', 'user', 'customer', 'system']),
    id: z.string().nullable(),
  })
  .nullable()
  .meta({
    description:
      'Who made the change: an API key, an organization access token, a user (JWT) or a customer (their session, ' +
      'or a buyer on a public page: id null), each with its id, or the system (a renewal, an expiry, the ' +
      "gateway's notice: id null). Null on events recorded before actors were.",
  });

/** The payload of DESIGN.md: the same shape in the log and in webhook deliveries. */
export const eventSchema = z.object({
  id: z.string(),
  type: z.string(),
  created_at: z.string(),
  organization_id: z.string(),
  actor: actorSchema,
  data: z.record(z.string(), z.unknown()),
});
export type EventRecord = z.infer<typeof eventSchema>;

/** The stored event as the API answers it (db/events.ts: the same envelope a webhook delivery posts). */
export const eventRecord = (e: EventRow): EventRecord => eventEnvelope(e);
