import { z } from 'zod';
import { EVENT_TYPES } from '../../db/event/events.ts';
import type { DeliveryView, WebhookAttemptRow } from '../../db/event/webhook-deliveries.ts';
import { PING_EVENT } from '../../domain/webhooks.ts';
import { iso, listQuery, nonBlank, uuid } from '../../use-cases/schemas/common.ts';

/** The types an endpoint can subscribe to (the ping goes only to the endpoint it tests). */
export const subscribableEventTypes = EVENT_TYPES.filter((t) => t !== PING_EVENT) as [string, ...string[]];
const subscribable = subscribableEventTypes;

const eventTypes = z
  .array(z.enum(subscribable))
  .max(subscribable.length)
  .meta({ description: 'Event types delivered to the endpoint; empty (the default): every type' });

const url = z
  .string()
  .max(2048)
  .meta({
    format: 'uri',
    description:
      'Where deliveries are POSTed: https (in the sandbox also http to a loopback address, for local development); ' +
      'in production never a loopback or private address, checked again after DNS at each delivery',
  });

export const createWebhookBody = z.strictObject({
  url,
  event_types: eventTypes.optional(),
  description: nonBlank(500).nullable().optional(),
  enabled: z.boolean().optional(),
});

/** The fields to change; none changes nothing (answered with the endpoint as it is). */
export const updateWebhookBody = z.strictObject({
  url: url.optional(),
  event_types: eventTypes.optional(),
  description: nonBlank(500).nullable().optional(),
  enabled: z.boolean().optional(),
});

export const webhookParams = z.object({ id: z.string().max(64) });
export const listWebhooksQuery = listQuery(['created_at']);

export const webhookSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  event_types: z.array(z.string()),
  enabled: z.boolean(),
  /** Why it was disabled by us (every delivery failing for days); null when enabled or disabled by hand. */
  disabled_reason: z.string().nullable(),
  failing_since: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** Shown once: at creation and at each rotation. */
export const webhookWithSecretSchema = webhookSchema.extend({
  secret: z.string().meta({ description: 'The signing secret (whsec_…): shown only now' }),
});

/** The endpoint's record: db/event/webhook-endpoints.ts (its events carry it too). */
export { webhookRecord } from '../../db/event/webhook-endpoints.ts';

export const listDeliveriesQuery = listQuery(['created_at']).extend({
  endpoint_id: uuid.optional(),
  event_id: uuid.optional(),
  status: z.enum(['pending', 'succeeded', 'failed', 'canceled']).optional(),
});

export const attemptSchema = z.object({
  number: z.number().int(),
  manual: z.boolean(),
  attempted_at: z.string(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  succeeded: z.boolean(),
  response_excerpt: z.string().nullable().meta({ description: 'The first KiB of the answer' }),
  error: z.string().nullable().meta({ description: 'Why no answer came (timeout, refused, address not allowed)' }),
});

export const deliverySchema = z.object({
  id: z.string(),
  event_id: z.string(),
  endpoint_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed', 'canceled']),
  attempts: z.number().int(),
  last_attempt_at: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  succeeded_at: z.string().nullable(),
  created_at: z.string(),
});

export const deliveryWithAttemptsSchema = deliverySchema.extend({ attempt_log: z.array(attemptSchema) });

export function deliveryRecord(r: DeliveryView): z.infer<typeof deliverySchema> {
  return {
    id: r.id,
    event_id: r.eventId,
    endpoint_id: r.endpointId,
    event_type: r.eventType,
    status: r.status,
    attempts: r.attempts,
    last_attempt_at: iso(r.lastAttemptAt),
    next_attempt_at: iso(r.nextAttemptAt),
    succeeded_at: iso(r.succeededAt),
    created_at: r.createdAt.toISOString(),
  };
}

export function attemptRecord(r: WebhookAttemptRow): z.infer<typeof attemptSchema> {
  return {
    number: r.number,
    manual: r.manual,
    attempted_at: r.attemptedAt.toISOString(),
    status_code: r.statusCode ?? null,
    latency_ms: r.latencyMs,
    succeeded: r.succeeded,
    response_excerpt: r.responseExcerpt ?? null,
    error: r.error ?? null,
  };
}

export const redeliverBody = z.strictObject({ event_id: uuid });
export const redeliveryStarted = z.object({ event_id: z.string(), endpoint_id: z.string(), workflow_id: z.string() });
export const pingStarted = z.object({ event_id: z.string(), endpoint_id: z.string() });
