import type { FilterQuery, InferEntity } from '@mikro-orm/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Customer, Subscription, SubscriptionCharge } from '../../db/entities/index.ts';
import type { RouteDeps } from '../app.ts';
import { notFound } from '../errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../schemas/common.ts';
import {
  listSubscriptionsQuery,
  presentCharge,
  presentSubscription,
  subscriptionDetailSchema,
  subscriptionPage,
  subscriptionParams,
  workflowUrl,
} from '../schemas/subscriptions.ts';

type SubscriptionEntity = InferEntity<typeof Subscription>;

// subscriptions:write, web:read and web:write imply subscriptions:read (domain/api-key-scopes.ts).
const READ = { oat: ['subscriptions:read'], apiKey: 'subscriptions' } as const;
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
};
