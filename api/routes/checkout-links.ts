import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { checkoutLinkPage, createCheckoutLink, findCheckoutLink } from '../../db/catalog/checkout-links.ts';
import { isOwnDiscount } from '../../db/catalog/discounts.ts';
import { productsForSale } from '../../db/catalog/products.ts';
import { childOrganizationIds } from '../../db/organization/organizations.ts';
import { recordEvent } from '../../db/events.ts';
import type { OrganizationCredential } from '../auth/credentials.ts';
import { forbidden, notFound, unprocessable } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import {
  checkoutLinkParams,
  checkoutLinkRecord,
  checkoutLinkSchema,
  createCheckoutLinkBody,
  listCheckoutLinksQuery,
  updateCheckoutLinkBody,
  type CheckoutLinkEntity,
} from '../schemas/checkout-links.ts';
import { errorResponses, pageOf, pageOffset, paginated, isUuid } from '../../use-cases/schemas/common.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

const tags = ['checkout-links'];
// API keys: read (GET) per the spec's table; writes need admin, which no key holds.
const READ = { oat: ['checkout_links:read'], apiKey: 'checkout-links' } as const;
const WRITE = { oat: ['checkout_links:write'], apiKey: 'checkout-links' } as const;
const SORT_COLUMNS = { created_at: 'createdAt', modified_at: 'updatedAt' } as const;

/** A link's record, its URL made from the configured base. */
type Present = (link: CheckoutLinkEntity) => ReturnType<typeof checkoutLinkRecord>;

export const checkoutLinksRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const present = (link: CheckoutLinkEntity) => checkoutLinkRecord(link, deps.config.checkoutLinkBase);

  creationRoutes(app, deps, present);
  readRoutes(app, deps, present);
  changeRoutes(app, deps, present);
};

/** POST /: a checkout link of the organization's products. */
function creationRoutes(app: RouteApp, deps: RouteDeps, present: Present): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Create a checkout link',
        description:
          "A reusable link for the organization's products: opening `url` creates a fresh checkout for the buyer. " +
          'Every product must be a product of the organization, not archived, with an active default price (422 ' +
          'otherwise); discount_id must be a discount of the organization (422).',
        body: createCheckoutLinkBody,
        response: { 201: checkoutLinkSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      const productIds = distinctIds(body.product_ids);
      const link = await deps.orm.em.fork().transactional(async (tx) => {
        await assertSellableProducts(tx, organizationId, productIds);
        if (body.discount_id) await assertOwnDiscount(tx, organizationId, body.discount_id);
        const now = new Date();
        const created = createCheckoutLink(tx, {
          id: uuidv7(),
          organizationId,
          label: body.label ?? null,
          productIds,
          discountId: body.discount_id?.toLowerCase() ?? null,
          allowDiscountCodes: body.allow_discount_codes,
          successUrl: body.success_url ?? null,
          cancelUrl: body.cancel_url ?? null,
          metadata: body.metadata ?? {},
          isArchived: false,
          createdAt: now,
          updatedAt: now,
        });
        recordEvent(tx, organizationId, 'checkout_link.created', present(created));
        return created;
      });
      return reply.status(201).send(present(link));
    },
  );
}

/**
 * GET / and GET /:id: the links of the organization (and, for a parent's access token, of its
 * direct sub-organizations).
 */
function readRoutes(app: RouteApp, deps: RouteDeps, present: Present): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'List checkout links',
        description:
          'page (1), limit (default 100, maximum 100), sort_by created_at or modified_at, sort_order asc or desc ' +
          '(default desc), product_id (links that include the product), is_archived (true: archived links only; ' +
          "absent or false: links in use). A parent organization's access token without organization_id lists its " +
          "own links and those of its direct sub-organizations; organization_id must be the token's organization or " +
          'one of its direct sub-organizations, else 403.',
        querystring: listCheckoutLinksQuery,
        response: { 200: paginated(checkoutLinkSchema), ...errorResponses },
      },
    },
    async (request) => {
      const credential = organizationCredential(request);
      const q = request.query;
      const em = deps.orm.em.fork();
      const family = await organizationFamily(em, credential);
      let organizationIds = family;
      if (q.organization_id !== undefined) {
        const wanted = q.organization_id.toLowerCase();
        if (!family.includes(wanted)) {
          throw forbidden('No access to organization', `The credential cannot act on organization ${wanted}`);
        }
        organizationIds = [wanted];
      }
      const where: FilterQuery<CheckoutLinkEntity> = {
        organizationId: { $in: organizationIds },
        isArchived: q.is_archived ?? false,
      };
      if (q.product_id !== undefined) where.productIds = { $contains: [q.product_id.toLowerCase()] };
      const column = SORT_COLUMNS[q.sort_by];
      const [rows, total] = await checkoutLinkPage(em, where, {
        orderBy: { [column]: q.sort_order, id: q.sort_order },
        limit: q.limit,
        offset: pageOffset(q),
      });
      return pageOf(rows.map(present), total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'Get a checkout link',
        description: 'Archived links stay readable, with is_archived true.',
        params: checkoutLinkParams,
        response: { 200: checkoutLinkSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      return present(await ownCheckoutLink(deps.orm.em.fork(), organizationId, request.params.id));
    },
  );
}

/** PATCH /:id and DELETE /:id. */
function changeRoutes(app: RouteApp, deps: RouteDeps, present: Present): void {
  app.patch(
    '/:id',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Update a checkout link',
        description:
          'Only the sent fields change; null clears a nullable field. New product_ids and discount_id follow the ' +
          'rules of creation (422). is_archived false restores an archived link.',
        params: checkoutLinkParams,
        body: updateCheckoutLinkBody,
        response: { 200: checkoutLinkSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      return deps.orm.em.fork().transactional(async (tx) => {
        const link = await ownCheckoutLink(tx, organizationId, request.params.id, true);
        const before = JSON.stringify(present(link));
        if (body.product_ids !== undefined) {
          const productIds = distinctIds(body.product_ids);
          await assertSellableProducts(tx, organizationId, productIds);
          link.productIds = productIds;
        }
        if (body.discount_id !== undefined) {
          if (body.discount_id !== null) await assertOwnDiscount(tx, organizationId, body.discount_id);
          link.discountId = body.discount_id?.toLowerCase() ?? null;
        }
        if (body.label !== undefined) link.label = body.label;
        if (body.allow_discount_codes !== undefined) link.allowDiscountCodes = body.allow_discount_codes;
        if (body.success_url !== undefined) link.successUrl = body.success_url;
        if (body.cancel_url !== undefined) link.cancelUrl = body.cancel_url;
        if (body.metadata !== undefined) link.metadata = body.metadata;
        if (body.is_archived !== undefined) link.isArchived = body.is_archived;
        if (JSON.stringify(present(link)) !== before) {
          link.updatedAt = new Date();
          recordEvent(tx, organizationId, 'checkout_link.updated', present(link));
        }
        return present(link);
      });
    },
  );

  app.delete(
    '/:id',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Archive a checkout link',
        description:
          'The link stops creating checkouts and leaves the default list; it stays readable (is_archived true) and ' +
          'can be restored with PATCH is_archived false. Archiving an archived link changes nothing.',
        params: checkoutLinkParams,
        response: { 204: z.null().describe('Archived'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      await deps.orm.em.fork().transactional(async (tx) => {
        const link = await ownCheckoutLink(tx, organizationId, request.params.id, true);
        if (link.isArchived) return;
        link.isArchived = true;
        link.updatedAt = new Date();
        recordEvent(tx, organizationId, 'checkout_link.deleted', present(link));
      });
      return reply.status(204).send(null);
    },
  );
}

/** A checkout link of the organization (archived included); foreign or malformed ids are a 404. */
export async function ownCheckoutLink(
  em: EntityManager,
  organizationId: string,
  id: string,
  lock = false,
): Promise<CheckoutLinkEntity> {
  const link = isUuid(id) ? await findCheckoutLink(em, organizationId, id, lock) : null;
  if (!link) throw notFound('Checkout link');
  return link;
}

/**
 * The organizations whose links the credential may list: its own and, for a parent organization's
 * access token (the spec's exception), its direct sub-organizations.
 */
async function organizationFamily(em: EntityManager, credential: OrganizationCredential): Promise<string[]> {
  if (credential.kind !== 'oat') return [credential.organizationId];
  return [credential.organizationId, ...(await childOrganizationIds(em, credential.organizationId))];
}

/** A link sells its products at their default prices, so each must be able to start a checkout now. */
async function assertSellableProducts(tx: EntityManager, organizationId: string, productIds: string[]): Promise<void> {
  const rows = await productsForSale(tx, organizationId, productIds);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = productIds.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    throw unprocessable('invalid_product', 'Product not found', `product_ids: ${missing.join(', ')}`);
  }
  const archived = rows.filter((r) => r.isArchived).map((r) => r.id);
  if (archived.length > 0) {
    throw unprocessable('product_archived', 'Product is archived', `product_ids: ${archived.join(', ')}`);
  }
  const priceless = rows.filter((r) => r.activeDefaultPriceId === null).map((r) => r.id);
  if (priceless.length > 0) {
    throw unprocessable(
      'product_without_price',
      'Product has no active default price',
      `product_ids: ${priceless.join(', ')}`,
    );
  }
}

async function assertOwnDiscount(tx: EntityManager, organizationId: string, discountId: string): Promise<void> {
  if (!(await isOwnDiscount(tx, organizationId, discountId))) {
    throw unprocessable('invalid_discount', 'Discount not found', `discount_id: ${discountId}`);
  }
}

/** UUIDs as PostgreSQL prints them (lower case), each once, in the order sent. */
function distinctIds(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}
