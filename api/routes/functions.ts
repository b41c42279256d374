import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { lockUnarchivedProduct } from '../../db/catalog/products.ts';
import { recordEvent } from '../../db/events.ts';
import { roleOf } from '../../db/organization/members.ts';
import { isAdminUser } from '../../db/organization/users.ts';
import { newDefaultPriceRefusal } from '../../domain/default-price.ts';
import { forbidden, notFound, unprocessable } from '../../use-cases/errors.ts';
import { userCredential } from '../plugins/auth.ts';
import { errorResponses } from '../../use-cases/schemas/common.ts';
import { createPriceBody, presentPrice, presentProduct, priceSchema } from '../schemas/catalog.ts';
import { checkedPrice, createPrice, pricesByProduct, provisionRecurrencePlans } from '../product-prices.ts';
import { mediasByProduct, mediasOf } from '../product-medias.ts';
import type { RouteDeps } from '../route-deps.ts';

/** The spec's `{functions_url}` operations, served by this app under /functions/v1. */
export const functionsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.post(
    '/create-price',
    {
      onRequest: app.authenticate({ user: true }),
      schema: {
        tags: ['products'],
        summary: 'Create a price for an existing product (user JWT of an admin user)',
        body: createPriceBody,
        response: { 201: priceSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const user = userCredential(request);
      const body = request.body;
      if (!(await isAdminUser(deps.orm.em.fork(), user.email))) throw forbidden('Only admin users can create prices');
      const normalized = checkedPrice(body, '');
      const refusal = body.set_as_default ? newDefaultPriceRefusal(body.active) : null;
      if (refusal) throw unprocessable(refusal.code, refusal.message, refusal.detail);

      const em = deps.orm.em.fork();
      const price = await em.transactional(async (tx) => {
        // A soft-deleted (archived) product takes no new prices: it is "not found" to this operation.
        const product = await lockUnarchivedProduct(tx, body.product_id);
        if (!product) throw notFound('Product');
        if (!(await roleOf(tx, product.organizationId, user.userId))) {
          throw forbidden(
            'No access to organization',
            `The user is not a member of the organization that owns product ${product.id}`,
          );
        }

        const now = new Date();
        const price = createPrice(tx, product, body, normalized, body.active, now);
        recordEvent(tx, product.organizationId, 'price.created', presentPrice(price));
        if (body.set_as_default) {
          product.defaultPriceId = price.id;
          product.modifiedAt = now;
          const prices = [...((await pricesByProduct(tx, [product.id])).get(product.id) ?? [])];
          if (!prices.some((p) => p.id === price.id)) prices.push(price);
          const medias = mediasOf(await mediasByProduct(tx, [product.id]), product.id);
          recordEvent(tx, product.organizationId, 'product.updated', presentProduct(product, prices, medias));
        }
        return price;
      });

      await provisionRecurrencePlans(deps, [price], request.log);
      return reply.status(201).send(presentPrice(price));
    },
  );
};
