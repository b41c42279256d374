import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listSales, type SaleFilter } from '../../db/sale/lists.ts';
import { ownSale } from '../../db/sale/reads.ts';
import { customerSearchPattern } from '../../domain/customer-search.ts';
import { saleRecordIn, saleRecordsIn } from '../../use-cases/sale-records.ts';
import { notFound } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import { listSalesQuery, salePage, saleParams, saleSchema } from '../schemas/sales.ts';
import type { RouteDeps } from '../route-deps.ts';

const READ = { oat: ['sales:read'], apiKey: 'sales' } as const;
const tags = ['sales'];

/** One sale per paid checkout (later also per paid renewal or invoice); read-only. */
export const salesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'List sales',
        description:
          'Filters: customer_id, product_id, subscription_id, status, and query: part of the customer’s e-mail or ' +
          'name, case-insensitive (as GET /customers/ finds them; `%` and `_` match themselves; a customer deleted ' +
          'since still matches). Sorting: created_at or amount (default -created_at).',
        querystring: listSalesQuery,
        response: { 200: salePage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      // Checked before any filter can answer early: a bad sorting is a 400 whatever else was sent.
      const order = orderBy(q.sorting, { created_at: 'createdAt', amount: 'amount' }, '-created_at');
      const where: SaleFilter = { organizationId };
      for (const [field, value] of [
        ['customerId', q.customer_id],
        ['productId', q.product_id],
        ['subscriptionId', q.subscription_id],
      ] as const) {
        if (value === undefined) continue;
        // A malformed id matches nothing, like an unknown one.
        if (!isUuid(value)) return pageOf([], 0, q.limit);
        where[field] = value;
      }
      if (q.status) where.status = q.status;
      const pattern = customerSearchPattern(q.query);
      if (pattern !== null) where.customerPattern = pattern;
      const em = deps.orm.em.fork();
      const { ids, total } = await listSales(em, where, { orderBy: order, limit: q.limit, offset: pageOffset(q) });
      return pageOf(await saleRecordsIn(em, ids), total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: { tags, summary: 'Get a sale', params: saleParams, response: { 200: saleSchema, ...errorResponses } },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const em = deps.orm.em.fork();
      const sale = isUuid(request.params.id) ? await ownSale(em, organizationId, request.params.id) : null;
      if (!sale) throw notFound('Sale');
      return saleRecordIn(em, sale.id);
    },
  );
};
