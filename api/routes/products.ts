import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { createProduct, productPage, productWithLists } from '../../db/catalog/products.ts';
import { isChildOf } from '../../db/organization/organizations.ts';
import { recordEvent } from '../../db/events.ts';
import { defaultPriceChangeRefusal, defaultPriceIndexValid } from '../../domain/default-price.ts';
import type { NormalizedPrice } from '../../domain/price-rules.ts';
import { forbidden, notFound, unprocessable } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses, orderBy, pageOf, pageOffset, isUuid } from '../../use-cases/schemas/common.ts';
import {
  createProductBody,
  listProductsQuery,
  presentPrice,
  presentListedProduct,
  presentProduct,
  productPage as productPageSchema,
  productParams,
  productSchema,
  updateProductBody,
  type InlinePrice,
} from '../schemas/catalog.ts';
import { mediasByProduct, mediasOf, ownMediaFiles, setProductMedias } from '../product-medias.ts';
import { checkedPrice, createPrice, ownProduct, pricesByProduct, provisionRecurrencePlans } from '../product-prices.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';
import { escapeLike } from '../../domain/like-patterns.ts';

const tags = ['products'];

export const productsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  creationRoutes(app, deps);
  readRoutes(app, deps);
  updateRoutes(app, deps);
  archiveRoutes(app, deps);
};

/** POST /: a product with its prices and medias. */
function creationRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate({ oat: ['products:write'], apiKey: 'products' }),
      schema: {
        tags,
        summary: 'Create a product with at least one inline price',
        body: createProductBody,
        response: { 201: productSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const credential = organizationCredential(request);
      const body = request.body;
      // Creating is for the credential's own organization only: the parent/child exception of the spec
      // covers checkouts and checkout links, not the catalog.
      if (body.organization_id !== credential.organizationId) {
        throw forbidden(
          'No access to organization',
          `The credential cannot act on organization ${body.organization_id}`,
        );
      }
      const normalized = body.prices.map((price, i) => checkedPrice(price, `prices.${i}.`));
      if (!defaultPriceIndexValid(body.default_price_index, body.prices.length)) {
        // Schema-valid (an index is any integer from 0): a rule between two fields, so a 422.
        throw unprocessable(
          'invalid_default_price_index',
          'Invalid default_price_index',
          `default_price_index must be between 0 and ${body.prices.length - 1}`,
        );
      }

      const em = deps.orm.em.fork();
      const { product, prices, medias } = await em.transactional(async (tx) => {
        const now = new Date();
        const product = createProduct(tx, {
          id: uuidv7(),
          organizationId: credential.organizationId,
          name: body.name,
          description: body.description ?? null,
          metadata: body.metadata ?? {},
          isArchived: false,
          isTaxApplicable: body.is_tax_applicable,
          defaultPriceId: null,
          createdAt: now,
          modifiedAt: null,
        });
        // prices.product_id and product_medias.product_id are checked immediately; the product row must exist first.
        await tx.flush();
        const medias = await ownMediaFiles(tx, product.organizationId, body.medias ?? []);
        await setProductMedias(tx, product, medias);
        const prices = body.prices.map((input, i) => createPrice(tx, product, input, normalized[i]!, true, now));
        product.defaultPriceId = prices[body.default_price_index]!.id;
        recordEvent(tx, product.organizationId, 'product.created', presentProduct(product, prices, medias));
        for (const price of prices) recordEvent(tx, product.organizationId, 'price.created', presentPrice(price));
        return { product, prices, medias };
      });

      await provisionRecurrencePlans(deps, prices, request.log);
      return reply.status(201).send(presentProduct(product, prices, medias));
    },
  );
}

/** GET / and GET /:id: products with their prices and medias. */
function readRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate({ oat: ['products:read'], apiKey: 'products' }),
      schema: {
        tags,
        summary: 'List products with their prices',
        querystring: listProductsQuery,
        response: { 200: productPageSchema, ...errorResponses },
      },
    },
    async (request) => {
      const credential = organizationCredential(request);
      const query = request.query;
      const organizationId = query.organization_id ?? credential.organizationId;
      if (organizationId !== credential.organizationId) {
        // A parent organization's access token may read its direct sub-organizations' catalogs.
        const child =
          credential.kind === 'oat' && (await isChildOf(deps.orm.em.fork(), organizationId, credential.organizationId));
        if (!child) {
          throw forbidden('No access to organization', `The credential cannot act on organization ${organizationId}`);
        }
      }

      const where = {
        organizationId,
        ...(query.is_archived !== undefined ? { isArchived: query.is_archived } : {}),
        ...(query.query ? { name: { $ilike: `%${escapeLike(query.query)}%` } } : {}),
      };

      const em = deps.orm.em.fork();
      const [products, total] = await productPage(em, where, {
        orderBy: orderBy(query.sorting, { created_at: 'createdAt', name: 'name' }, '-created_at'),
        limit: query.limit,
        offset: pageOffset(query),
      });
      const ids = products.map((p) => p.id);
      const [prices, medias] = await Promise.all([pricesByProduct(em, ids), mediasByProduct(em, ids)]);
      return pageOf(
        products.map((p) => presentProduct(p, prices.get(p.id) ?? [], mediasOf(medias, p.id))),
        total,
        query.limit,
      );
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate({ oat: ['products:read'], apiKey: 'products' }),
      schema: {
        tags,
        summary: 'Get a product with all its prices, archived ones included',
        params: productParams,
        response: { 200: productSchema, ...errorResponses },
      },
    },
    async (request) => {
      const credential = organizationCredential(request);
      // The hottest read of the API: one prepared statement, no ORM hydration.
      const [product] = isUuid(request.params.id)
        ? await productWithLists(deps.orm.em, request.params.id, credential.organizationId)
        : [];
      if (!product) throw notFound('Product');
      return presentListedProduct(product);
    },
  );
}

/**
 * PATCH /:id: the product's fields, its new prices and the prices it archives (prices are
 * immutable).
 */
function updateRoutes(app: RouteApp, deps: RouteDeps): void {
  app.patch(
    '/:id',
    {
      onRequest: app.authenticate({ oat: ['products:write'], apiKey: 'products' }),
      schema: {
        tags,
        summary: 'Update a product, add prices or archive prices (prices themselves are immutable)',
        params: productParams,
        body: updateProductBody,
        response: { 200: productSchema, ...errorResponses },
      },
    },
    async (request) => {
      const credential = organizationCredential(request);
      const body = request.body;
      const added = (body.add_prices ?? []).map((price, i) => ({
        input: price,
        normalized: checkedPrice(price, `add_prices.${i}.`),
      }));

      const em = deps.orm.em.fork();
      const { product, prices, medias, created } = await em.transactional((tx) =>
        updateProduct(tx, { id: request.params.id, organizationId: credential.organizationId, body, added }),
      );

      await provisionRecurrencePlans(deps, created, request.log);
      return presentProduct(product, prices, medias);
    },
  );
}

/** DELETE /:id: archives the product (it stays readable). */
function archiveRoutes(app: RouteApp, deps: RouteDeps): void {
  app.delete(
    '/:id',
    {
      onRequest: app.authenticate({ oat: ['products:write'], apiKey: 'products' }),
      schema: {
        tags,
        summary: 'Archive a product (soft delete: it stays readable, with is_archived true)',
        params: productParams,
        response: { 204: z.null().meta({ description: 'Archived' }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const credential = organizationCredential(request);
      const em = deps.orm.em.fork();
      await em.transactional(async (tx) => {
        const product = await ownProduct(tx, request.params.id, credential.organizationId, true);
        if (product.isArchived) return;
        product.isArchived = true;
        product.modifiedAt = new Date();
        const prices = await pricesByProduct(tx, [product.id]);
        const medias = mediasOf(await mediasByProduct(tx, [product.id]), product.id);
        recordEvent(
          tx,
          product.organizationId,
          'product.updated',
          presentProduct(product, prices.get(product.id) ?? [], medias),
        );
      });
      return reply.status(204).send(null);
    },
  );
}

/**
 * PATCH /:id's transaction: the locked product, the prices it archives and its default price checked,
 * the new prices written, and, when anything changed, its fields set and the events recorded.
 */
async function updateProduct(tx: EntityManager, update: ProductUpdate) {
  const { id, organizationId, body, added } = update;
  const product = await ownProduct(tx, id, organizationId, true);
  const prices = (await pricesByProduct(tx, [product.id])).get(product.id) ?? [];
  const shown = mediasOf(await mediasByProduct(tx, [product.id]), product.id);
  const medias = body.medias ? await ownMediaFiles(tx, product.organizationId, body.medias) : shown;
  const mediasChanged = medias.map((m) => m.id).join() !== shown.map((m) => m.id).join();
  const byId = new Map(prices.map((p) => [p.id, p]));

  const archiveIds = [...new Set(body.archive_price_ids ?? [])];
  const unknown = archiveIds.filter((id) => !byId.has(id));
  if (unknown.length > 0) {
    throw unprocessable('unknown_price', 'Price not found on this product', `archive_price_ids: ${unknown.join(', ')}`);
  }
  const defaultPriceId = body.default_price_id ?? product.defaultPriceId;
  const refusal = defaultPriceChangeRefusal({
    requested: body.default_price_id,
    current: product.defaultPriceId ?? null,
    archiving: archiveIds,
    prices,
  });
  if (refusal) throw unprocessable(refusal.code, refusal.message, refusal.detail);

  const now = new Date();
  const archived = archiveIds.map((id) => byId.get(id)!).filter((p) => p.active);
  for (const price of archived) {
    price.active = false;
    price.modifiedAt = now;
  }
  const created = added.map(({ input, normalized }) => createPrice(tx, product, input, normalized, true, now));

  const changed =
    archived.length > 0 ||
    created.length > 0 ||
    (body.name !== undefined && body.name !== product.name) ||
    (body.description !== undefined && body.description !== product.description) ||
    body.metadata !== undefined ||
    (body.is_tax_applicable !== undefined && body.is_tax_applicable !== product.isTaxApplicable) ||
    defaultPriceId !== product.defaultPriceId ||
    (body.is_archived !== undefined && body.is_archived !== product.isArchived) ||
    mediasChanged;
  if (!changed) return { product, prices, medias, created };

  if (body.name !== undefined) product.name = body.name;
  if (body.description !== undefined) product.description = body.description;
  if (body.metadata !== undefined) product.metadata = body.metadata;
  if (body.is_tax_applicable !== undefined) product.isTaxApplicable = body.is_tax_applicable;
  if (body.is_archived !== undefined) product.isArchived = body.is_archived;
  product.defaultPriceId = defaultPriceId;
  product.modifiedAt = now;
  if (mediasChanged) await setProductMedias(tx, product, medias);

  const all = [...prices, ...created];
  recordEvent(tx, product.organizationId, 'product.updated', presentProduct(product, all, medias));
  for (const price of created) recordEvent(tx, product.organizationId, 'price.created', presentPrice(price));
  for (const price of archived) recordEvent(tx, product.organizationId, 'price.updated', presentPrice(price));
  return { product, prices: all, medias, created };
}

/** What PATCH /:id changes: the product named, the body, and its new prices, checked. */
interface ProductUpdate {
  id: string;
  organizationId: string;
  body: z.infer<typeof updateProductBody>;
  added: { input: InlinePrice; normalized: NormalizedPrice }[];
}
