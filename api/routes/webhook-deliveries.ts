import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { findEvent } from '../../db/event/events.ts';
import { findDelivery, listDeliveries } from '../../db/event/webhook-deliveries.ts';
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

/**
 * Deliveries of the organization's events to its endpoints, each with every attempt, and redelivery of
 * any event to an endpoint by hand — one that failed, and one that succeeded too (a receiver that lost
 * what it got). Deliveries under /api/v1/webhook-deliveries/, redelivery under /api/v1/webhooks/<id>/.
 */
export const webhookDeliveriesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
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
      const { deliveries, total } = await listDeliveries(
        deps.orm.em.fork(),
        organizationId,
        { endpointId: q.endpoint_id, eventId: q.event_id, status: q.status },
        { direction, limit: q.limit, offset: pageOffset(q) },
      );
      return pageOf(deliveries.map(deliveryRecord), total, q.limit);
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
      const found = await findDelivery(deps.orm.em.fork(), organizationId, id);
      if (!found) throw notFound('Webhook delivery');
      return { ...deliveryRecord(found.delivery), attempt_log: found.attempts.map(attemptRecord) };
    },
  );
};

/** `POST /api/v1/webhooks/<id>/redeliver`: registered under the endpoints' prefix. */
export const webhookRedeliveryRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
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
      const em = deps.orm.em.fork();
      const endpoint = await endpointOf(em, credential, request.params.id);
      if (!endpoint.enabled)
        throw conflict('The webhook endpoint is disabled', 'enable it first (PATCH enabled: true)');
      const eventId = request.body.event_id;
      if (!(await findEvent(em, credential.organizationId, eventId))) throw notFound('Event');
      const workflowId = webhookWorkflowId(eventId, endpoint.id);
      const requestId = randomUUID();
      // A run in progress is told to try (again) now; otherwise a new run starts, and ignores this signal.
      await deps.temporal.workflow.signalWithStart<WebhookDeliveryWorkflow, [string]>('webhookDeliveryWorkflow', {
        workflowId,
        taskQueue: webhookTaskQueue(deps.config.TEMPORAL_TASK_QUEUE),
        args: [
          {
            eventId,
            endpointId: endpoint.id,
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
      return reply.status(202).send({ event_id: eventId, endpoint_id: endpoint.id, workflow_id: workflowId });
    },
  );
};
