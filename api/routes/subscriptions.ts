import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { customerIdByExternalId } from '../../db/customer/subscription-reads.ts';
import { listSubscriptions, type SubscriptionFilter } from '../../db/subscription/lists.ts';
import type { SubscriptionRow } from '../../db/subscription/record.ts';
import { findOwnSubscription } from '../../db/subscription/rows.ts';
import { subscriptionWithCharges } from '../../use-cases/subscription-reads.ts';
import type { SubscriptionAction } from '../../domain/subscriptions.ts';
import { ApiError, notFound } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import {
  sendClockAdvance,
  sendMetadataChange,
  sendPriceChange,
  sendSubscriptionChange,
} from '../subscription-updates.ts';
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
import type { RouteApp, RouteDeps } from '../route-deps.ts';

// subscriptions:write, web:read and web:write imply subscriptions:read (domain/api-key-scopes.ts).
const READ = { oat: ['subscriptions:read'], apiKey: 'subscriptions' } as const;
const WRITE = { oat: ['subscriptions:write'], apiKey: 'subscriptions' } as const;
const tags = ['subscriptions'];

/** The read side of subscriptions: each one as its workflow last recorded it, with its charges. */
export const subscriptionsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  readRoutes(app, deps);
  changeRoutes(app, deps);
};

/** GET / and GET /:id: subscriptions as their workflows last recorded them; one with its charges. */
function readRoutes(app: RouteApp, deps: RouteDeps): void {
  const present = (s: SubscriptionRow) => presentSubscription(s, workflowUrl(deps.config, s.workflowId));

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
      const where: SubscriptionFilter = { organizationId };
      for (const [field, value] of [
        ['customerId', q.customer_id],
        ['productId', q.product_id],
      ] as const) {
        if (value === undefined) continue;
        // A malformed id matches nothing, like an unknown one.
        if (!isUuid(value)) return pageOf([], 0, q.limit);
        where[field] = value;
      }
      if (q.status) where.statuses = [q.status];
      const em = deps.orm.em.fork();
      if (q.external_customer_id !== undefined) {
        const customerId = await customerIdByExternalId(em, organizationId, q.external_customer_id);
        if (!customerId || (where.customerId !== undefined && where.customerId !== customerId))
          return pageOf([], 0, q.limit);
        where.customerId = customerId;
      }
      const { subscriptions, total } = await listSubscriptions(em, where, {
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
      const { subscription, charges } = await subscriptionWithCharges(deps.orm.em.fork(), id, { organizationId });
      return { ...present(subscription), charges: charges.map(presentCharge) };
    },
  );
}

/** PATCH /:id and POST /:id/test-clock/advance: changes, made by the subscription's workflow. */
function changeRoutes(app: RouteApp, deps: RouteDeps): void {
  app.patch(
    '/:id',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Cancel a subscription at its period end, undo that, revoke it now, or change its price or metadata',
        description:
          "The change is made by the subscription's workflow, which answers with the subscription as written. " +
          'A subscription that has ended answers 409; a price it cannot move to, or a declined prorated charge, 422.',
        params: subscriptionParams,
        body: updateSubscriptionBody,
        response: { 200: subscriptionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const workflowId = await workflowOf(request, request.params.id);
      const body = request.body;
      const record =
        'price_id' in body
          ? await sendPriceChange(deps.temporal, workflowId, body.price_id)
          : 'metadata' in body
            ? await sendMetadataChange(deps.temporal, workflowId, body.metadata)
            : await sendSubscriptionChange(deps.temporal, workflowId, actionOf(body));
      return { ...record, workflow_url: workflowUrl(deps.config, record.workflow_id) };
    },
  );

  app.post(
    '/:id/test-clock/advance',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: "Move a subscription's test clock forward (test deployments only)",
        description:
          "The subscription's own time jumps to `to`: the renewals, dunning retries, trial end and deadlines due " +
          'by then happen at once, one after the other, as its workflow works through them (read the ' +
          'subscription to see them). A subscription billed by the gateway has the sandbox gateway bill each due ' +
          'period (and retry a refused one) on its day. Only forward; refused (403) in a live deployment.',
        params: subscriptionParams,
        body: advanceClockBody,
        response: { 200: z.object({ id: z.string(), clock: z.string() }), ...errorResponses },
      },
    },
    async (request) => {
      if (deps.config.DEPLOYMENT_ENV === 'live') {
        throw new ApiError(403, 'test_clock_unavailable', 'Test clocks exist only in test deployments');
      }
      const { id } = request.params;
      const { clock } = await sendClockAdvance(deps.temporal, await workflowOf(request, id), request.body.to);
      return { id, clock };
    },
  );

  /** The workflow of the credential's organization's subscription `id`; 404 for any other. */
  async function workflowOf(request: FastifyRequest, id: string): Promise<string> {
    const { organizationId } = organizationCredential(request);
    const subscription = isUuid(id) ? await findOwnSubscription(deps.orm.em.fork(), { organizationId }, id) : null;
    if (!subscription) throw notFound('Subscription');
    return subscription.workflowId;
  }
}

/** Sandbox test clocks: a subscription's own time, moved forward on request (never in a live deployment). */
const advanceClockBody = z.strictObject({
  to: z.iso.datetime({ offset: true }).describe("The subscription's new time: later than its current time"),
});

const actionOf = (
  body: Exclude<UpdateSubscriptionBody, { price_id: string } | { metadata: unknown }>,
): SubscriptionAction =>
  'revoke' in body ? 'revoke' : body.cancel_at_period_end ? 'cancel_at_period_end' : 'uncancel';
