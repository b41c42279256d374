import type { EntityManager } from '@mikro-orm/postgresql';
import { findEndpoint, type WebhookEndpointRow } from '../db/event/webhook-endpoints.ts';
import { notFound } from '../use-cases/errors.ts';
import { isUuid } from '../use-cases/schemas/common.ts';

/** The webhook endpoints' scopes and lookup, shared by the endpoints' routes and their deliveries' routes. */

export const WEBHOOKS_READ = { oat: ['webhooks:read'], apiKey: 'other' } as const;

export const WEBHOOKS_WRITE = { oat: ['webhooks:write'], apiKey: 'other' } as const;

/** The organization's endpoint (404 for another's, a deleted one or a malformed id); locked with `forUpdate`. */
export async function endpointOf(
  em: EntityManager,
  credential: { organizationId: string },
  id: string,
  forUpdate = false,
): Promise<WebhookEndpointRow> {
  const endpoint = isUuid(id) ? await findEndpoint(em, credential.organizationId, id, forUpdate) : null;
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}
