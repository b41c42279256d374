import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { plainSql } from '../../db/plain-sql.ts';
import { ORGANIZATION_ID } from '../../domain/search-attributes.ts';
import { webhookTaskQueue } from '../../domain/task-queues.ts';
import { webhookWorkflowId } from '../../domain/webhooks.ts';
import { conflict, notFound } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import {
  createdAtDirection,
  errorResponses,
  isUuid,
  pageOf,
  pageOffset,
  paginated,
} from '../../use-cases/schemas/common.ts';
import {
  attemptRecord,
  deliveryRecord,
  deliverySchema,
  deliveryWithAttemptsSchema,
  listDeliveriesQuery,
  redeliverBody,
  redeliveryStarted,
  webhookParams,
} from '../schemas/webhooks.ts';
import { attemptNowSignal } from '../../contracts/webhook-delivery.ts';
import type { WebhookDeliveryWorkflow } from '../../contracts/webhook-delivery.ts';
import type { RouteDeps } from '../route-deps.ts';
import { endpointOf, WEBHOOKS_READ, WEBHOOKS_WRITE } from '../webhook-endpoints.ts';

const tags = ['webhooks'];

const DELIVERY_COLUMNS = `d.id, d.event_id, d.endpoint_id, e.type as event_type, d.status, d.attempts, d.last_attempt_at,
  d.next_attempt_at, d.succeeded_at, d.created_at`;

/**
 * Deliveries of the organization's events to its endpoints, each with every attempt, and redelivery of
 * any event to an endpoint by hand — one that failed, and one that succeeded too (a receiver that lost
 * what it got). Deliveries under /api/v1/webhook-deliveries/, redelivery under /api/v1/webhooks/<id>/.
 */
export const webhookDeliveriesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const db = plainSql(deps.orm);

  app.get(
    '/',
    {
      onRequest: app.authenticate(WEBHOOKS_READ),
      schema: {
        tags,
        summary: 'List webhook deliveries',
        description:
          'Filters: endpoint_id (the deliveries of an endpoint), event_id (of an event), status. sorting: ' +
          'created_at or -created_at (default).',
        querystring: listDeliveriesQuery,
        response: { 200: paginated(deliverySchema), ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const direction = createdAtDirection(q.sorting);
      const where = `d.organization_id = ? and (?::uuid is null or d.endpoint_id = ?::uuid)
        and (?::uuid is null or d.event_id = ?::uuid) and (?::text is null or d.status = ?::text)`;
      const params = [
        organizationId,
        q.endpoint_id ?? null,
        q.endpoint_id ?? null,
        q.event_id ?? null,
        q.event_id ?? null,
        q.status ?? null,
        q.status ?? null,
      ];
      const [rows, [total]] = await Promise.all([
        db.query(
          `select ${DELIVERY_COLUMNS} from webhook_deliveries d join events e on e.id = d.event_id where ${where}
           order by d.created_at ${direction}, d.id ${direction} limit ? offset ?`,
          [...params, q.limit, pageOffset(q)],
        ),
        db.query(`select count(*)::int as n from webhook_deliveries d where ${where}`, params),
      ]);
      return pageOf(rows.map(deliveryRecord), total!.n as number, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(WEBHOOKS_READ),
      schema: {
        tags,
        summary: 'Get a webhook delivery with its attempts',
        params: webhookParams,
        response: { 200: deliveryWithAttemptsSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const { id } = request.params;
      if (!isUuid(id)) throw notFound('Webhook delivery');
      const [row] = await db.query(
        `select ${DELIVERY_COLUMNS} from webhook_deliveries d join events e on e.id = d.event_id
         where d.id = ? and d.organization_id = ?`,
        [id, organizationId],
      );
      if (!row) throw notFound('Webhook delivery');
      const attempts = await db.query(
        'select * from webhook_attempts where delivery_id = ? order by attempted_at, number',
        [id],
      );
      return { ...deliveryRecord(row), attempt_log: attempts.map(attemptRecord) };
    },
  );
};

/** `POST /api/v1/webhooks/<id>/redeliver`: registered under the endpoints' prefix. */
export const webhookRedeliveryRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const db = plainSql(deps.orm);

  app.post(
    '/:id/redeliver',
    {
      onRequest: app.authenticate(WEBHOOKS_WRITE),
      schema: {
        tags,
        summary: 'Redeliver an event to a webhook endpoint',
        description:
          'Any event of the organization, whether its delivery to this endpoint failed, succeeded or never was ' +
          '(an endpoint added or enabled since). A delivery waiting to try again tries now. 409 when the endpoint ' +
          'is disabled.',
        params: webhookParams,
        body: redeliverBody,
        response: { 202: redeliveryStarted, ...errorResponses },
      },
    },
    async (request, reply) => {
      const credential = organizationCredential(request);
      const endpoint = await endpointOf(db.query, credential, request.params.id);
      if (!endpoint.enabled)
        throw conflict('The webhook endpoint is disabled', 'enable it first (PATCH enabled: true)');
      const eventId = request.body.event_id;
      const [event] = await db.query('select id from events where id = ? and organization_id = ?', [
        eventId,
        credential.organizationId,
      ]);
      if (!event) throw notFound('Event');
      const workflowId = webhookWorkflowId(eventId, endpoint.id as string);
      const requestId = randomUUID();
      // A run in progress is told to try (again) now; otherwise a new run starts, and ignores this signal.
      await deps.temporal.workflow.signalWithStart<WebhookDeliveryWorkflow, [string]>('webhookDeliveryWorkflow', {
        workflowId,
        taskQueue: webhookTaskQueue(deps.config.TEMPORAL_TASK_QUEUE),
        args: [
          {
            eventId,
            endpointId: endpoint.id as string,
            organizationId: credential.organizationId,
            manual: true,
            requestId,
          },
        ],
        signal: attemptNowSignal,
        signalArgs: [requestId],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: [{ key: ORGANIZATION_ID, value: credential.organizationId }],
      });
      return reply.status(202).send({ event_id: eventId, endpoint_id: endpoint.id as string, workflow_id: workflowId });
    },
  );
};
