import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listSubscriptions, type SubscriptionFilter } from '../../db/subscription/lists.ts';
import type { SubscriptionChargeRow, SubscriptionRow } from '../../db/subscription/record.ts';
import { isLive, SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';
import { subscriptionWithCharges } from '../../use-cases/subscription-reads.ts';
import { customerCredential } from '../plugins/auth.ts';
import { changePortalSubscription } from '../portal-subscription-changes.ts';
import { portalMandateOf, revokePortalMandate } from '../portal-mandates.ts';
import { errorBody, errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import {
  listPortalSubscriptionsQuery,
  portalMandateSchema,
  portalSubscriptionDetailSchema,
  portalSubscriptionPage,
  portalSubscriptionSchema,
  presentPortalSubscription,
  updatePortalSubscriptionBody,
} from '../schemas/customer-portal.ts';
import { presentCharge, presentSubscription, subscriptionParams } from '../schemas/subscriptions.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

const CUSTOMER = { customer: true } as const;
const tags = ['customer-portal'];

/** A charge without our transaction id: the portal has no operation that takes one. */
function presentPortalCharge(c: SubscriptionChargeRow) {
  const { transaction_id: _internal, ...shown } = presentCharge(c);
  return shown;
}

// The merchant's presenter builds the record; the portal's picks what the customer sees (no workflow_url).
const present = (s: SubscriptionRow) => presentPortalSubscription(presentSubscription(s, ''));

/**
 * The Customer Portal's subscriptions: each customer sees and changes only its own. Another
 * customer's or organization's subscription is a 404, like an unknown id, so no id is confirmed.
 */
export const customerPortalSubscriptionsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  readRoutes(app, deps);
  updateRoutes(app, deps);
};

/** GET / and GET /:id: the session's customer's subscriptions; one of them with its charges. */
function readRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate(CUSTOMER),
      schema: {
        operationId: 'listPortalSubscriptions',
        tags,
        summary: "List the subscriptions of the session's customer",
        description:
          'Filters: status, product_id, active. Sorting: created_at, current_period_end or amount (default -created_at).',
        querystring: listPortalSubscriptionsQuery,
        response: { 200: portalSubscriptionPage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId, customerId } = customerCredential(request);
      const q = request.query;
      // Checked before any filter can answer early: a bad sorting is a 400 whatever else was sent.
      const order = orderBy(
        q.sorting,
        { created_at: 'createdAt', current_period_end: 'currentPeriodEnd', amount: 'amount' },
        '-created_at',
      );
      const where: SubscriptionFilter = { organizationId, customerId };
      if (q.status !== undefined || q.active !== undefined) {
        const statuses = SUBSCRIPTION_STATUSES.filter(
          (s) => (q.status === undefined || s === q.status) && (q.active === undefined || isLive(s) === q.active),
        );
        if (statuses.length === 0) return pageOf([], 0, q.limit);
        where.statuses = statuses;
      }
      if (q.product_id !== undefined) {
        // A malformed id matches nothing, like an unknown one.
        if (!isUuid(q.product_id)) return pageOf([], 0, q.limit);
        where.productId = q.product_id;
      }
      const { subscriptions, total } = await listSubscriptions(deps.orm.em.fork(), where, {
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
      onRequest: app.authenticate(CUSTOMER),
      schema: {
        operationId: 'getPortalSubscription',
        tags,
        summary: "Get a subscription of the session's customer, with its charges",
        params: subscriptionParams,
        response: { 200: portalSubscriptionDetailSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId, customerId } = customerCredential(request);
      const { id } = request.params;
      const em = deps.orm.em.fork();
      const { subscription, charges } = await subscriptionWithCharges(em, id, { organizationId, customerId });
      const mandate =
        subscription.recurrenceBilling === 'pix_automatico' ? await portalMandateOf(em, subscription) : null;
      return { ...present(subscription), charges: charges.map(presentPortalCharge), mandate };
    },
  );
}

/** PATCH /:id: what the customer may change of its own subscription; POST /:id/mandate/revoke: its Pix Automático authorization. */
function updateRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/:id/mandate/revoke',
    {
      onRequest: app.authenticate(CUSTOMER),
      schema: {
        operationId: 'revokePortalMandate',
        tags,
        summary: "Revoke the Pix Automático authorization of a subscription of the session's customer",
        description:
          "The subscription's workflow cancels the mandate at the gateway as the receiver and records it " +
          '(event `mandate.cancelled`); the next period then finds no active mandate and is not charged. ' +
          'Answers the mandate as it now stands. A manual subscription’s mandate still waiting for the payer is ' +
          'withdrawn by its own workflow instead, cancelled at the gateway alike (SLCR), and the subscription keeps ' +
          'its billing. A mandate already cancelled, rejected or expired answers 422 ' +
          '`mandate_ended`; a subscription not billed by Pix Automático, 422 `no_mandate`; an ended ' +
          'subscription, 409. Not behind allow_customer_updates: a payer may always revoke (at its bank too).',
        params: subscriptionParams,
        response: { 200: portalMandateSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId, customerId } = customerCredential(request);
      return revokePortalMandate(deps, { organizationId, customerId }, request.params.id);
    },
  );

  app.patch(
    '/:id',
    {
      onRequest: app.authenticate(CUSTOMER),
      schema: {
        operationId: 'updatePortalSubscription',
        tags,
        summary: 'Cancel a subscription of the session customer at its period end, undo that, or change its price',
        description:
          "The change is made by the subscription's workflow, as the merchant's PATCH /subscriptions/<id> makes it, " +
          'and answered with the subscription as written. A subscription that has ended answers 409; a price it ' +
          'cannot move to, or a declined prorated charge, 422; an organization whose ' +
          'subscription_settings.allow_customer_updates is false answers 403 `customer_updates_disabled`.',
        params: subscriptionParams,
        body: updatePortalSubscriptionBody,
        response: {
          200: portalSubscriptionSchema,
          ...errorResponses,
          403: errorBody.meta({
            description:
              'The credential is not a customer session, or the organization does not let customers change ' +
              'their subscriptions (`customer_updates_disabled`)',
          }),
        },
      },
    },
    async (request) => {
      const { organizationId, customerId } = customerCredential(request);
      return changePortalSubscription(deps, { organizationId, customerId }, request.params.id, request.body);
    },
  );
}
