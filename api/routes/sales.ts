import type { FilterQuery, InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Customer, Product, Sale, Transaction } from '../../db/entities/index.ts';
import { notFound } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import { listSalesQuery, presentSale, salePage, saleParams, saleSchema, type SaleBody } from '../schemas/sales.ts';
import type { RouteDeps } from '../route-deps.ts';

type SaleEntity = InferEntity<typeof Sale>;

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
          'Filters: customer_id, product_id, subscription_id, status. Sorting: created_at or amount (default -created_at).',
        querystring: listSalesQuery,
        response: { 200: salePage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      // Checked before any filter can answer early: a bad sorting is a 400 whatever else was sent.
      const order = orderBy(q.sorting, { created_at: 'createdAt', amount: 'amount' }, '-created_at');
      const where: FilterQuery<SaleEntity> = { organizationId };
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
      const em = deps.orm.em.fork();
      const [sales, total] = await em.findAndCount(Sale, where, {
        orderBy: order,
        limit: q.limit,
        offset: pageOffset(q),
      });
      return pageOf(await presentSales(em, sales), total, q.limit);
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
      const sale = isUuid(request.params.id) ? await em.findOne(Sale, { id: request.params.id, organizationId }) : null;
      if (!sale) throw notFound('Sale');
      const [body] = await presentSales(em, [sale]);
      return body!;
    },
  );
};

/** Presents sales with their customer, product and gateway transaction id, loaded in one query each. */
async function presentSales(em: EntityManager, sales: SaleEntity[]): Promise<SaleBody[]> {
  if (sales.length === 0) return [];
  // One EntityManager runs one query at a time.
  const customers = await em.find(Customer, { id: { $in: [...new Set(sales.map((s) => s.customerId))] } });
  const products = await em.find(Product, { id: { $in: [...new Set(sales.map((s) => s.productId))] } });
  const paid = sales.flatMap((s) => (s.transactionId ? [s.transactionId] : []));
  const transactions = paid.length ? await em.find(Transaction, { id: { $in: paid } }) : [];
  const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]));
  const [c, p, t] = [byId(customers), byId(products), byId(transactions)];
  return sales.map((sale) => {
    const customer = c.get(sale.customerId)!;
    const product = p.get(sale.productId)!;
    return presentSale(sale, {
      // A sale of a zero total has no payment.
      gatewayTransactionId: sale.transactionId ? t.get(sale.transactionId)!.gatewayTransactionId : null,
      chargedAmount: sale.transactionId ? Number(t.get(sale.transactionId)!.amount) : null,
      customer: { id: customer.id, email: customer.email, name: customer.name ?? null },
      product: { id: product.id, name: product.name },
    });
  });
}
