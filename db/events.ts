import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import { Event } from './entities/index.ts';

/** Event names of DESIGN.md: `<resource>.<change>`. */
export type EventType =
  | 'organization.created'
  | 'organization.updated'
  | 'organization_member.added'
  | 'organization_member.removed'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'api_key.deleted'
  | 'access_token.created'
  | 'access_token.revoked'
  | 'customer.created'
  | 'customer.updated'
  | 'customer.deleted'
  | 'product.created'
  | 'product.updated'
  | 'price.created'
  | 'price.updated'
  | 'discount.created'
  | 'discount.updated'
  | 'discount.deleted'
  | 'checkout_link.created'
  | 'checkout_link.updated'
  | 'checkout_link.deleted'
  | 'checkout.created'
  | 'checkout.updated'
  | 'sale.created'
  | 'sale.paid'
  | 'sale.refunded'
  | 'subscription.created'
  | 'subscription.active'
  | 'refund.created';

/**
 * Records an event in the outbox. Call it with the EntityManager of the transaction that makes the
 * change, so the event exists exactly when the change does.
 */
export function recordEvent(
  em: EntityManager,
  organizationId: string,
  type: EventType,
  data: Record<string, unknown>,
): void {
  em.create(Event, { id: uuidv7(), organizationId, type, data, createdAt: new Date() });
}
