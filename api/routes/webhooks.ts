import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { insertEvents, type EventType } from '../../db/event/events.ts';
import {
  deleteEndpoint,
  insertEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
  type WebhookEndpointRow,
} from '../../db/event/webhook-endpoints.ts';
import type { Orm } from '../../db/orm.ts';
import { endpointUrlRefusal, PING_EVENT, SECRET_OVERLAP_MS } from '../../domain/webhooks.ts';
import { conflict, unprocessable } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import {
  createdAtDirection,
  errorResponses,
  pageOf,
  pageOffset,
  paginated,
  validationErrors,
} from '../../use-cases/schemas/common.ts';
import {
  createWebhookBody,
  listWebhooksQuery,
  pingStarted,
  updateWebhookBody,
  webhookParams,
  webhookRecord,
  webhookSchema,
  webhookWithSecretSchema,
} from '../schemas/webhooks.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';
import { WEBHOOKS_READ, WEBHOOKS_WRITE, endpointOf } from '../webhook-endpoints.ts';

const tags = ['webhooks'];
// The spec gives API keys no webhook operations: resource 'other' needs admin, which no key holds.

const URL_ERROR = { invalid_url: 'the URL is not one deliveries may go to (the detail says why)' };

/** A new signing secret: `whsec_` and 24 random bytes in base64, as Standard Webhooks libraries read it. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * `/api/v1/webhooks/`: the organization's endpoints. The secret is shown when made and when rotated,
 * never read back; a rotated-out secret keeps signing beside the new one for SECRET_OVERLAP_MS.
 * Deliveries and redelivery are in webhook-deliveries.ts.
 */
export const webhooksRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const db = deps.orm;
  const env = deps.config.DEPLOYMENT_ENV;
  const assertUrl = (url: string) => {
    const refusal = endpointUrlRefusal(url, env);
    if (refusal) throw unprocessable('invalid_url', 'Invalid webhook URL', `url ${refusal}`);
  };

  creationRoutes(app, db, assertUrl);
  readRoutes(app, db);
  changeRoutes(app, db, assertUrl);
  secretAndPingRoutes(app, db);
};

/** POST /: an endpoint, its secret shown this once. */
function creationRoutes(app: RouteApp, db: Orm, assertUrl: (url: string) => void): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate(WEBHOOKS_WRITE),
      schema: {
        tags,
        summary: 'Create a webhook endpoint',
        description:
          'Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the ' +
          'secret returned here, once. 422 `invalid_url` for a URL deliveries may not go to.',
        body: createWebhookBody,
        response: { 201: webhookWithSecretSchema, ...errorResponses, 422: validationErrors(URL_ERROR) },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      assertUrl(body.url);
      const secret = newSecret();
      const row = await db.em.fork().transactional(async (tx) => {
        const created = await insertEndpoint(tx, {
          organizationId,
          url: body.url,
          description: body.description ?? null,
          eventTypes: distinct(body.event_types ?? []),
          enabled: body.enabled ?? true,
          secret,
        });
        await audit(tx, 'webhook_endpoint.created', created);
        return created;
      });
      return reply.status(201).send({ ...webhookRecord(row), secret });
    },
  );
}

/** GET / and GET /:id (never the secret). */
function readRoutes(app: RouteApp, db: Orm): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate(WEBHOOKS_READ),
      schema: {
        tags,
        summary: 'List webhook endpoints',
        description: 'sorting: created_at or -created_at (default). Deleted endpoints are not listed.',
        querystring: listWebhooksQuery,
        response: { 200: paginated(webhookSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const direction = createdAtDirection(q.sorting);
      const { endpoints, total } = await listEndpoints(db.em.fork(), organizationId, {
        direction,
        limit: q.limit,
        offset: pageOffset(q),
      });
      return pageOf(endpoints.map(webhookRecord), total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(WEBHOOKS_READ),
      schema: {
        tags,
        summary: 'Get a webhook endpoint',
        params: webhookParams,
        response: { 200: webhookSchema, ...errorResponses },
      },
    },
    async (request) =>
      webhookRecord(await endpointOf(db.em.fork(), organizationCredential(request), request.params.id)),
  );
}

/** PATCH /:id and DELETE /:id. */
function changeRoutes(app: RouteApp, db: Orm, assertUrl: (url: string) => void): void {
  app.patch(
    '/:id',
    {
      onRequest: app.authenticate(WEBHOOKS_WRITE),
      schema: {
        tags,
        summary: 'Update a webhook endpoint',
        description:
          'url, event_types, description, enabled (none: nothing changes). Enabling an endpoint we disabled clears its failure record; ' +
          'what it missed meanwhile can be redelivered (POST /webhooks/{id}/redeliver). 422 `invalid_url`.',
        params: webhookParams,
        body: updateWebhookBody,
        response: { 200: webhookSchema, ...errorResponses, 422: validationErrors(URL_ERROR) },
      },
    },
    async (request) => {
      const credential = organizationCredential(request);
      const body = request.body;
      if (body.url !== undefined) assertUrl(body.url);
      if (Object.keys(body).length === 0)
        return webhookRecord(await endpointOf(db.em.fork(), credential, request.params.id));
      const row = await db.em.fork().transactional(async (tx) => {
        const current = await endpointOf(tx, credential, request.params.id, true);
        const updated = await updateEndpoint(tx, current.id, {
          url: body.url ?? current.url,
          description: body.description === undefined ? (current.description ?? null) : body.description,
          eventTypes: body.event_types === undefined ? current.eventTypes : distinct(body.event_types),
          enabled: body.enabled ?? current.enabled,
          clearFailure: body.enabled === true && !current.enabled,
        });
        await audit(tx, 'webhook_endpoint.updated', updated);
        return updated;
      });
      return webhookRecord(row);
    },
  );

  app.delete(
    '/:id',
    {
      onRequest: app.authenticate(WEBHOOKS_WRITE),
      schema: {
        tags,
        summary: 'Delete a webhook endpoint',
        description: 'Deliveries waiting to try again are canceled at their next attempt.',
        params: webhookParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const credential = organizationCredential(request);
      await db.em.fork().transactional(async (tx) => {
        const current = await endpointOf(tx, credential, request.params.id, true);
        await audit(tx, 'webhook_endpoint.deleted', await deleteEndpoint(tx, current.id));
      });
      return reply.status(204).send(null);
    },
  );
}

/**
 * POST /:id/secret (a new secret; the old one keeps signing for SECRET_OVERLAP_MS) and POST
 * /:id/ping (a test event).
 */
function secretAndPingRoutes(app: RouteApp, db: Orm): void {
  app.post(
    '/:id/secret',
    {
      onRequest: app.authenticate(WEBHOOKS_WRITE),
      schema: {
        tags,
        summary: "Rotate a webhook endpoint's secret",
        description:
          'A new secret, shown once. For 24 hours deliveries carry a signature by each secret (space-separated in ' +
          'webhook-signature), so a receiver can switch at its own pace.',
        params: webhookParams,
        response: { 200: webhookWithSecretSchema, ...errorResponses },
      },
    },
    async (request) => {
      const credential = organizationCredential(request);
      const secret = newSecret();
      const row = await db.em.fork().transactional(async (tx) => {
        const current = await endpointOf(tx, credential, request.params.id, true);
        const rotated = await rotateSecret(tx, current.id, secret, new Date(Date.now() + SECRET_OVERLAP_MS));
        await audit(tx, 'webhook_endpoint.updated', rotated);
        return rotated;
      });
      return { ...webhookRecord(row), secret };
    },
  );

  app.post(
    '/:id/ping',
    {
      onRequest: app.authenticate(WEBHOOKS_WRITE),
      schema: {
        tags,
        summary: 'Send a test event to a webhook endpoint',
        description: `Writes a ${PING_EVENT} event, delivered to this endpoint only. 409 when the endpoint is disabled.`,
        params: webhookParams,
        response: { 202: pingStarted, ...errorResponses },
      },
    },
    async (request, reply) => {
      const credential = organizationCredential(request);
      const eventId = await db.em.fork().transactional(async (tx) => {
        const endpoint = await endpointOf(tx, credential, request.params.id, true);
        if (!endpoint.enabled)
          throw conflict('The webhook endpoint is disabled', 'enable it first (PATCH enabled: true)');
        const [id] = await insertEvents(tx, credential.organizationId, [[PING_EVENT, webhookRecord(endpoint)]]);
        return id!;
      });
      return reply.status(202).send({ event_id: eventId, endpoint_id: request.params.id });
    },
  );
}

/** The endpoint's event, in the transaction that changes it (never with the secret). */
async function audit(tx: EntityManager, type: EventType, row: WebhookEndpointRow): Promise<void> {
  await insertEvents(tx, row.organizationId, [[type, webhookRecord(row)]]);
}

const distinct = (types: readonly string[]) => [...new Set(types)];
