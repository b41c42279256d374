import type { EntityManager } from '@mikro-orm/postgresql';
import { type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from 'uuidv7';
import type { WebhookEndpoint } from '../entities/index.ts';
import { kyselyOf } from '../kysely.ts';

/**
 * The webhook endpoints of the event object: the only code that reads or writes `webhook_endpoints`.
 * A deleted endpoint keeps its row (`deletedAt`) for its deliveries' history and is as absent as an
 * unknown id to every read here.
 */

export type WebhookEndpointRow = InferEntity<typeof WebhookEndpoint>;

/** A webhook endpoint as GET /webhooks/{id} answers it (never its secret), and as its events carry it. */
export type WebhookEndpointRecord = {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
};

export function webhookRecord(r: WebhookEndpointRow): WebhookEndpointRecord {
  return {
    id: r.id,
    organization_id: r.organizationId,
    url: r.url,
    description: r.description ?? null,
    event_types: r.eventTypes,
    enabled: r.enabled,
    disabled_reason: r.disabledReason ?? null,
    failing_since: r.failingSince?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** The organization's live endpoint by id, locked `for update` when asked (inside a transaction). */
export async function findEndpoint(
  em: EntityManager,
  organizationId: string,
  id: string,
  forUpdate = false,
): Promise<WebhookEndpointRow | null> {
  const query = kyselyOf(em)
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .where('deletedAt', 'is', null);
  return (await (forUpdate ? query.forUpdate() : query).executeTakeFirst()) ?? null;
}

export async function listEndpoints(
  em: EntityManager,
  organizationId: string,
  page: { direction: 'asc' | 'desc'; limit: number; offset: number },
): Promise<{ endpoints: WebhookEndpointRow[]; total: number }> {
  const live = kyselyOf(em)
    .selectFrom('webhook_endpoints')
    .where('organizationId', '=', organizationId)
    .where('deletedAt', 'is', null);
  const [endpoints, count] = await Promise.all([
    live
      .selectAll()
      .orderBy('createdAt', page.direction)
      .orderBy('id', page.direction)
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    live.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { endpoints, total: Number(count.n) };
}

export interface NewEndpoint {
  organizationId: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
  secret: string;
}

export async function insertEndpoint(em: EntityManager, e: NewEndpoint): Promise<WebhookEndpointRow> {
  return kyselyOf(em)
    .insertInto('webhook_endpoints')
    .values((eb) => ({ id: uuidv7(), ...e, createdAt: eb.fn<Date>('now'), updatedAt: eb.fn<Date>('now') }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What a PATCH sets (the whole editable state); enabling an endpoint clears its failure record. */
export interface EndpointChange {
  url: string;
  description: string | null;
  eventTypes: string[];
  enabled: boolean;
  clearFailure: boolean;
}

export async function updateEndpoint(em: EntityManager, id: string, c: EndpointChange): Promise<WebhookEndpointRow> {
  return kyselyOf(em)
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      url: c.url,
      description: c.description,
      eventTypes: c.eventTypes,
      enabled: c.enabled,
      ...(c.clearFailure ? { disabledReason: null, failingSince: null } : {}),
      updatedAt: eb.fn<Date>('now'),
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteEndpoint(em: EntityManager, id: string): Promise<WebhookEndpointRow> {
  return kyselyOf(em)
    .updateTable('webhook_endpoints')
    .set((eb) => ({ deletedAt: eb.fn<Date>('now'), enabled: false, updatedAt: eb.fn<Date>('now') }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A new secret; the current one keeps signing beside it until `previousUntil`. */
export async function rotateSecret(
  em: EntityManager,
  id: string,
  secret: string,
  previousUntil: Date,
): Promise<WebhookEndpointRow> {
  return kyselyOf(em)
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previousSecret: eb.ref('secret'),
      previousSecretExpiresAt: previousUntil,
      secret,
      updatedAt: eb.fn<Date>('now'),
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A delivery to the endpoint succeeded: it is failing no more. */
export async function clearFailing(em: EntityManager, id: string): Promise<void> {
  await kyselyOf(em)
    .updateTable('webhook_endpoints')
    .set({ failingSince: null })
    .where('id', '=', id)
    .where('failingSince', 'is not', null)
    .execute();
}

/** A delivery to the endpoint failed at `at`: failing since then, unless it already was. */
export async function markFailing(
  em: EntityManager,
  id: string,
  at: Date,
): Promise<{ failingSince: Date; enabled: boolean }> {
  const row = await kyselyOf(em)
    .updateTable('webhook_endpoints')
    .set((eb) => ({ failingSince: eb.fn.coalesce('failingSince', eb.val(at)) }))
    .where('id', '=', id)
    .returning(['failingSince', 'enabled'])
    .executeTakeFirstOrThrow();
  return { failingSince: row.failingSince!, enabled: row.enabled };
}

export async function disableEndpoint(
  em: EntityManager,
  id: string,
  reason: string,
  at: Date,
): Promise<WebhookEndpointRow> {
  return kyselyOf(em)
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabledReason: reason, updatedAt: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
