import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { chargesOfMandate } from '../../db/mandate/charges.ts';
import { listMandates, ownMandate, type MandateFilter } from '../../db/mandate/reads.ts';
import { notFound } from '../../use-cases/errors.ts';
import { errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import { mandateEventData, presentMandateDetail } from '../../use-cases/schemas/mandates.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { listMandatesQuery, mandateDetailSchema, mandatePage, mandateParams } from '../schemas/mandates.ts';
import type { RouteDeps } from '../route-deps.ts';

/**
 * GET /mandates and GET /mandates/{id}: Pix Automático's mandates (decision 0096), read only. A mandate
 * is how a subscription is billed, so reading one takes the subscriptions' read scope.
 */
const READ = { oat: ['subscriptions:read'], apiKey: 'subscriptions' } as const;
const tags = ['mandates'];

export const mandatesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'List Pix Automático mandates',
        description:
          'Filters: subscription_id, customer_id, status. Sorting: created_at (default -created_at). ' +
          'Scope: subscriptions:read. Each item is the mandate without its charges (GET /mandates/{id} has them).',
        querystring: listMandatesQuery,
        response: { 200: mandatePage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      // Checked before any filter can answer early: a bad sorting is a 400 whatever else was sent.
      const order = orderBy(q.sorting, { created_at: 'createdAt' }, '-created_at');
      const where: MandateFilter = { organizationId };
      for (const [key, value] of [
        ['subscriptionId', q.subscription_id],
        ['customerId', q.customer_id],
      ] as const) {
        if (value === undefined) continue;
        if (!isUuid(value)) return pageOf([], 0, q.limit);
        where[key] = value;
      }
      if (q.status !== undefined) where.status = q.status;
      const { mandates, total } = await listMandates(deps.orm.em.fork(), where, {
        orderBy: order,
        limit: q.limit,
        offset: pageOffset(q),
      });
      return pageOf(mandates.map(mandateEventData), total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'Get a Pix Automático mandate with its charges',
        description:
          "The mandate and its cycles' charges, by period, each with its settlement attempts: the date, the kind, " +
          'the status, the rejection code and the failure in words. Scope: subscriptions:read.',
        params: mandateParams,
        response: { 200: mandateDetailSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const em = deps.orm.em.fork();
      const mandate = isUuid(request.params.id) ? await ownMandate(em, organizationId, request.params.id) : null;
      if (!mandate) throw notFound('Mandate');
      return presentMandateDetail(mandate, await chargesOfMandate(em, mandate.id));
    },
  );
};
