import type { FilterQuery, InferEntity } from '@mikro-orm/core';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Customer, Subscription, SubscriptionCharge } from '../../db/entities/index.ts';
import type { RouteDeps } from '../app.ts';
import { SUBSCRIPTION_ENDED, type SubscriptionAction } from '../../domain/subscriptions.ts';
import { changeSubscriptionUpdate } from '../../workflows/subscription.ts';
import { conflict, notFound } from '../errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../schemas/common.ts';
import {
  listSubscriptionsQuery,
  presentCharge,
  presentSubscription,
  subscriptionDetailSchema,
  subscriptionPage,
  subscriptionParams,
  subscriptionSchema,
  updateSubscriptionBody,
  workflowUrl,
  type UpdateSubscriptionBody,
} from '../schemas/subscriptions.ts';

type SubscriptionEntity = InferEntity<typeof Subscription>;

// subscriptions:write, web:read and web:write imply subscriptions:read (domain/api-key-scopes.ts).
const READ = { oat: ['subscriptions:read'], apiKey: 'subscriptions' } as const;
const WRITE = { oat: ['subscriptions:write'], apiKey: 'subscriptions' } as const;
const tags = ['subscriptions'];

/** The read side of subscriptions: each one as its workflow last recorded it, with its charges. */
export const subscriptionsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const present = (s: SubscriptionEntity) => presentSubscription(s, workflowUrl(deps.config, s.workflowId));

  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'List subscriptions',
        description:
          "Filters: status, customer_id, external_customer_id (the customer's external_id), product_id. " +
          'Sorting: created_at, current_period_end or amount (default -created_at).',
        querystring: listSubscriptionsQuery,
        response: { 200: subscriptionPage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      // Checked before any filter can answer early: a bad sorting is a 400 whatever else was sent.
      const order = orderBy(
        q.sorting,
        { created_at: 'createdAt', current_period_end: 'currentPeriodEnd', amount: 'amount' },
        '-created_at',
      );
      const where: FilterQuery<SubscriptionEntity> = { organizationId };
      for (const [field, value] of [
        ['customerId', q.customer_id],
        ['productId', q.product_id],
      ] as const) {
        if (value === undefined) continue;
        // A malformed id matches nothing, like an unknown one.
        if (!isUuid(value)) return pageOf([], 0, q.limit);
        where[field] = value;
      }
      if (q.status) where.status = q.status;
      const em = deps.orm.em.fork();
      if (q.external_customer_id !== undefined) {
        // The customer GET /customers/external/<id> answers with: a deleted one no longer holds the id.
        const customer = await em.findOne(
          Customer,
          { organizationId, externalId: q.external_customer_id, deletedAt: null },
          { fields: ['id'] },
        );
        if (!customer || (where.customerId !== undefined && where.customerId !== customer.id))
          return pageOf([], 0, q.limit);
        where.customerId = customer.id;
      }
      const [subscriptions, total] = await em.findAndCount(Subscription, where, {
        orderBy: order,
        limit: q.limit,
        offset: pageOffset(q),
      });
      return pageOf(subscriptions.map(present), total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'Get a subscription with its charges',
        params: subscriptionParams,
        response: { 200: subscriptionDetailSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const { id } = request.params;
      const em = deps.orm.em.fork();
      const subscription = isUuid(id) ? await em.findOne(Subscription, { id, organizationId }) : null;
      if (!subscription) throw notFound('Subscription');
      const charges = await em.find(
        SubscriptionCharge,
        { subscriptionId: id },
        { orderBy: { attemptedAt: 'asc', periodNumber: 'asc', tryNumber: 'asc' } },
      );
      return { ...present(subscription), charges: charges.map(presentCharge) };
    },
  );

  app.patch(
    '/:id',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Cancel a subscription at its period end, undo that, or revoke it now',
        description:
          "The change is made by the subscription's workflow, which answers with the subscription as written. " +
          'A subscription that has ended answers 409.',
        params: subscriptionParams,
        body: updateSubscriptionBody,
        response: { 200: subscriptionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const { id } = request.params;
      const subscription = isUuid(id)
        ? await deps.orm.em.fork().findOne(Subscription, { id, organizationId }, { fields: ['workflowId'] })
        : null;
      if (!subscription) throw notFound('Subscription');
      try {
        const record = await deps.temporal.workflow
          .getHandle(subscription.workflowId)
          .executeUpdate(changeSubscriptionUpdate, { args: [actionOf(request.body)] });
        return { ...record, workflow_url: workflowUrl(deps.config, record.workflow_id) };
      } catch (err) {
        throw changeError(err);
      }
    },
  );
};

const actionOf = (body: UpdateSubscriptionBody): SubscriptionAction =>
  'revoke' in body ? 'revoke' : body.cancel_at_period_end ? 'cancel_at_period_end' : 'uncancel';

/** The workflow's refusal as the API's error; a workflow that has finished belongs to an ended subscription. */
function changeError(err: unknown): unknown {
  const ended = () => conflict('The subscription has ended', 'A canceled subscription cannot be changed');
  if (err instanceof WorkflowNotFoundError) return ended();
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    if (err.cause.type === SUBSCRIPTION_ENDED) return ended();
  }
  return err;
}
