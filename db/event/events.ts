import type { FilterQuery, InferEntity, QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import type { InvoiceEvent } from '../../domain/invoices.ts';
import type { SubscriptionEvent } from '../../domain/subscriptions.ts';
import type { Actor } from '../../contracts/actor.ts';
import { currentActor } from '../actor-context.ts';
import { Event } from '../entities/index.ts';
import { kyselyOf } from '../kysely.ts';

/** Event names of DESIGN.md (`<resource>.<change>`), as a list: what a webhook endpoint may subscribe to. */
export const EVENT_TYPES = [
  'organization.created',
  'organization.updated',
  'organization_member.added',
  'organization_member.removed',
  'api_key.created',
  'api_key.revoked',
  'api_key.deleted',
  'access_token.created',
  'access_token.revoked',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'product.created',
  'product.updated',
  'price.created',
  'price.updated',
  'discount.created',
  'discount.updated',
  'discount.deleted',
  'checkout_link.created',
  'checkout_link.updated',
  'checkout_link.deleted',
  'checkout.created',
  'checkout.updated',
  'sale.created',
  'sale.paid',
  'sale.refunded',
  'sale.disputed',
  'sale.dispute_closed',
  'subscription.created',
  'subscription.active',
  'subscription.updated',
  'subscription.past_due',
  'subscription.canceled',
  'subscription.uncanceled',
  'subscription.revoked',
  'invoice.created',
  'invoice.paid',
  'invoice.failed',
  'invoice.voided',
  'refund.created',
  'reconciliation.completed',
  // Pix Automático (decision 0096): the mandate's data is the Mandate, a charge's the MandateCharge.
  'mandate.created',
  'mandate.approved',
  'mandate.rejected',
  'mandate.expired',
  'mandate.cancelled',
  'mandate.charge_created',
  'mandate.charge_attempt_failed',
  'mandate.charge_retry_requested',
  'mandate.charge_paid',
  'mandate.charge_failed',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.disabled',
  'webhook_endpoint.ping',
] as const satisfies readonly (SubscriptionEvent | InvoiceEvent | string)[];

export type EventType = (typeof EVENT_TYPES)[number];
// Every subscription and invoice event of domain/ is in the list (a compile error otherwise).
const _listed: readonly EventType[] = [] as (SubscriptionEvent | InvoiceEvent)[];
void _listed;

/**
 * Records an event in the outbox. Call it with the EntityManager of the transaction that makes the
 * change, so the event exists exactly when the change does. The actor is the context's (db/actor-context.ts).
 */
export function recordEvent(
  em: EntityManager,
  organizationId: string,
  type: EventType,
  data: Record<string, unknown>,
): void {
  em.create(Event, { id: uuidv7(), organizationId, type, data, actor: currentActor(), createdAt: new Date() });
}

/**
 * Records several events in one statement, in order, inside the caller's transaction: the hot paths'
 * form of recordEvent (no entity to track and flush). `em` is the transaction's EntityManager.
 */
export async function insertEvents(
  em: EntityManager,
  organizationId: string,
  events: readonly (readonly [EventType, Record<string, unknown>])[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const createdAt = new Date();
  const actor = currentActor();
  const rows = events.map(([type, data]) => ({ id: uuidv7(), organizationId, type, data, actor, createdAt }));
  await kyselyOf(em).insertInto('events').values(rows).execute();
  return rows.map((row) => row.id);
}

/** The organization's event by id (its id only: whether it exists). */
export async function findEvent(em: EntityManager, organizationId: string, id: string): Promise<{ id: string } | null> {
  const row = await kyselyOf(em)
    .selectFrom('events')
    .select('id')
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return row ?? null;
}

/** What GET /events filters on: a type or a type prefix (`customer.`), a creation range, the record it is about. */
export interface EventFilter {
  type?: string;
  typePrefix?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  objectId?: string;
}

type EventEntity = InferEntity<typeof Event>;

/**
 * The organization's event log, a page of it and its size. An entity query: its `data.id` filter is
 * the `data->>'id'` the index events_org_object_idx covers.
 */
export async function listEvents(
  em: EntityManager,
  organizationId: string,
  f: EventFilter,
  page: { orderBy: QueryOrderMap<EventEntity>; limit: number; offset: number },
): Promise<{ events: EventEntity[]; total: number }> {
  const where: FilterQuery<EventEntity> = { organizationId };
  if (f.type !== undefined) where.type = f.type;
  if (f.typePrefix !== undefined) where.type = { $like: `${f.typePrefix.replaceAll('_', '\\_')}%` };
  if (f.createdAfter !== undefined || f.createdBefore !== undefined) {
    where.createdAt = {
      ...(f.createdAfter !== undefined ? { $gte: f.createdAfter } : {}),
      ...(f.createdBefore !== undefined ? { $lt: f.createdBefore } : {}),
    };
  }
  if (f.objectId !== undefined) where.data = { id: f.objectId };
  const [events, total] = await em.findAndCount(Event, where, {
    orderBy: page.orderBy,
    limit: page.limit,
    offset: page.offset,
  });
  return { events, total };
}

/** The organization's event by id, whole. */
export async function getEvent(em: EntityManager, organizationId: string, id: string): Promise<EventEntity | null> {
  return em.findOne(Event, { id, organizationId });
}

/** An event as it is stored: the outbox row. */
export interface EventRow {
  id: string;
  organizationId: string;
  type: string;
  data: Record<string, unknown>;
  actor?: Actor | null;
  createdAt: Date;
}

/** DESIGN.md's payload, the same in the log (GET /events) and in every webhook delivery. */
export function eventEnvelope(e: EventRow) {
  return {
    id: e.id,
    type: e.type,
    created_at: e.createdAt.toISOString(),
    organization_id: e.organizationId,
    actor: e.actor ?? null,
    data: e.data,
  };
}
