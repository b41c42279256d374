import { defineEntity, p } from '@mikro-orm/core';

/** A merchant's webhook endpoint (migration 0019); deleted ones are kept with `deletedAt`. */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    url: p.text(),
    description: p.text().nullable(),
    eventTypes: p.array(),
    enabled: p.boolean().default(true),
    secret: p.text(),
    previousSecret: p.text().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    disabledReason: p.text().nullable(),
    failingSince: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
});

/** A delivery's states: waiting for its next attempt, delivered, given up, or its endpoint gone. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;

/** One event's delivery to one endpoint (unique per pair), with its attempts' summary. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    eventId: p.uuid(),
    endpointId: p.uuid(),
    status: p.enum(DELIVERY_STATUSES),
    attempts: p.integer().default(0),
    lastAttemptAt: p.datetime().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    succeededAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/** One HTTP attempt of a delivery (unique per delivery, workflow run and attempt number). */
export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  properties: {
    id: p.uuid().primary(),
    deliveryId: p.uuid(),
    runId: p.text(),
    number: p.integer(),
    manual: p.boolean(),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer(),
    succeeded: p.boolean(),
    responseExcerpt: p.text().nullable(),
    error: p.text().nullable(),
  },
});

/**
 * The outbox relay's cursor (one row, id 1): the (transaction id, sequence) of the last event relayed.
 * `tx` is an `xid8`, read and written as text.
 */
export const WebhookRelay = defineEntity({
  name: 'WebhookRelay',
  tableName: 'webhook_relay',
  properties: {
    id: p.integer().primary(),
    tx: p.string().columnType('xid8'),
    seq: p.bigint('string'),
    updatedAt: p.datetime(),
  },
});

/** A notification mail sent, one per event (migration 0022). */
export const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    eventId: p.uuid().primary(),
    organizationId: p.uuid(),
    recipients: p.array(),
    subject: p.text(),
    messageId: p.text(),
    sentAt: p.datetime(),
  },
});

/** A notification waiting to be mailed, one per event (migration 0023); its send's record removes it. */
export const NotificationJob = defineEntity({
  name: 'NotificationJob',
  tableName: 'notification_jobs',
  properties: {
    eventId: p.uuid().primary(),
    organizationId: p.uuid(),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().defaultRaw('now()'),
    lastError: p.text().nullable(),
    gaveUpAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
