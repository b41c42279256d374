import type { EntityManager } from '@mikro-orm/postgresql';
import { type InferEntity } from '@mikro-orm/core';
import { uuidv7 } from 'uuidv7';
import type { Actor } from '../../contracts/actor.ts';
import type { DELIVERY_STATUSES, WebhookAttempt } from '../entities/index.ts';
import { kyselyOf } from '../kysely.ts';

/**
 * The deliveries of events to webhook endpoints and their attempts: the only code that reads or
 * writes `webhook_deliveries` and `webhook_attempts`. A delivery is one per (event, endpoint) pair,
 * an attempt one per (delivery, workflow run, number), so a retried activity records nothing twice.
 */

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type WebhookAttemptRow = InferEntity<typeof WebhookAttempt>;

/** What an attempt posts: the event and the endpoint's URL and secrets, with whether it still takes deliveries. */
export interface DeliverySource {
  eventId: string;
  organizationId: string;
  type: string;
  data: Record<string, unknown>;
  actor: Actor | null;
  createdAt: Date;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  live: boolean;
}

/** The event and the organization's endpoint it goes to (undefined when either is unknown). */
export async function deliverySource(
  em: EntityManager,
  eventId: string,
  endpointId: string,
): Promise<DeliverySource | undefined> {
  const row = await kyselyOf(em)
    .selectFrom('events as e')
    .innerJoin('webhook_endpoints as w', (join) =>
      join.on('w.id', '=', endpointId).onRef('w.organizationId', '=', 'e.organizationId'),
    )
    .select([
      'e.id as eventId',
      'e.organizationId',
      'e.type',
      'e.data',
      'e.actor',
      'e.createdAt',
      'w.url',
      'w.secret',
      'w.previousSecret',
      'w.previousSecretExpiresAt',
      'w.enabled',
      'w.deletedAt',
    ])
    .where('e.id', '=', eventId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { enabled, deletedAt, ...source } = row;
  return { ...source, live: enabled && deletedAt == null };
}

/** The pair's delivery, made pending on its first attempt; its id either way. */
export async function openDelivery(
  em: EntityManager,
  d: { organizationId: string; eventId: string; endpointId: string; at: Date },
): Promise<string> {
  const row = await kyselyOf(em)
    .insertInto('webhook_deliveries')
    .values({
      id: uuidv7(),
      organizationId: d.organizationId,
      eventId: d.eventId,
      endpointId: d.endpointId,
      status: 'pending',
      createdAt: d.at,
      updatedAt: d.at,
    })
    .onConflict((oc) =>
      oc.columns(['eventId', 'endpointId']).doUpdateSet((eb) => ({ updatedAt: eb.ref('excluded.updatedAt') })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The endpoint is gone or disabled: the delivery will not be tried again. */
export async function cancelDelivery(em: EntityManager, id: string): Promise<void> {
  await kyselyOf(em)
    .updateTable('webhook_deliveries')
    .set({ status: 'canceled', nextAttemptAt: null })
    .where('id', '=', id)
    .execute();
}

/** The attempt's row; false when an earlier try of the same activity recorded it already. */
export async function insertAttempt(em: EntityManager, a: Omit<WebhookAttemptRow, 'id'>): Promise<boolean> {
  const inserted = await kyselyOf(em)
    .insertInto('webhook_attempts')
    .values({ id: uuidv7(), ...a })
    .onConflict((oc) => oc.columns(['deliveryId', 'runId', 'number']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The delivery after one more attempt: its state, and when it tries next (null: it does not). */
export async function recordDeliveryAttempt(
  em: EntityManager,
  id: string,
  r: { status: DeliveryStatus; at: Date; nextAttemptAt: Date | null; succeeded: boolean },
): Promise<void> {
  await kyselyOf(em)
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: r.status,
      attempts: eb('attempts', '+', 1),
      lastAttemptAt: r.at,
      nextAttemptAt: r.nextAttemptAt,
      ...(r.succeeded ? { succeededAt: r.at } : {}),
      updatedAt: r.at,
    }))
    .where('id', '=', id)
    .execute();
}

/** A delivery as GET /webhook-deliveries answers it, its event's type beside it. */
export interface DeliveryView {
  id: string;
  eventId: string;
  endpointId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  succeededAt: Date | null;
  createdAt: Date;
}

export interface DeliveryFilter {
  endpointId?: string;
  eventId?: string;
  status?: DeliveryStatus;
}

const organizationDeliveries = (em: EntityManager, organizationId: string, f: DeliveryFilter) => {
  let query = kyselyOf(em).selectFrom('webhook_deliveries as d').where('d.organizationId', '=', organizationId);
  if (f.endpointId !== undefined) query = query.where('d.endpointId', '=', f.endpointId);
  if (f.eventId !== undefined) query = query.where('d.eventId', '=', f.eventId);
  if (f.status !== undefined) query = query.where('d.status', '=', f.status);
  return query;
};

const viewOf = <Q extends ReturnType<typeof organizationDeliveries>>(query: Q) =>
  query
    .innerJoin('events as e', 'e.id', 'd.eventId')
    .select([
      'd.id',
      'd.eventId',
      'd.endpointId',
      'e.type as eventType',
      'd.status',
      'd.attempts',
      'd.lastAttemptAt',
      'd.nextAttemptAt',
      'd.succeededAt',
      'd.createdAt',
    ]);

export async function listDeliveries(
  em: EntityManager,
  organizationId: string,
  filter: DeliveryFilter,
  page: { direction: 'asc' | 'desc'; limit: number; offset: number },
): Promise<{ deliveries: DeliveryView[]; total: number }> {
  const [deliveries, count] = await Promise.all([
    viewOf(organizationDeliveries(em, organizationId, filter))
      .orderBy('d.createdAt', page.direction)
      .orderBy('d.id', page.direction)
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    organizationDeliveries(em, organizationId, filter)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { deliveries, total: Number(count.n) };
}

/** The organization's delivery by id, with its attempts in the order they were made. */
export async function findDelivery(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<{ delivery: DeliveryView; attempts: WebhookAttemptRow[] } | null> {
  const delivery = await viewOf(organizationDeliveries(em, organizationId, {}))
    .where('d.id', '=', id)
    .executeTakeFirst();
  if (!delivery) return null;
  const attempts = await kyselyOf(em)
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('deliveryId', '=', id)
    .orderBy('attemptedAt')
    .orderBy('number')
    .execute();
  return { delivery, attempts };
}
