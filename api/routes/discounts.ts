import { UniqueConstraintViolationException, type FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { createDiscount, discountByCodePattern, discountPage, findDiscount } from '../../db/catalog/discounts.ts';
import { ownProductIds } from '../../db/catalog/products.ts';
import { recordEvent } from '../../db/events.ts';
import { maxRedemptionsRefusal } from '../../domain/discounts.ts';
import { notFound, unprocessable } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import {
  errorResponses,
  orderBy,
  pageOf,
  pageOffset,
  paginated,
  isUuid,
  validationErrors,
} from '../../use-cases/schemas/common.ts';
import {
  createDiscountBody,
  discountParams,
  discountRecord,
  discountSchema,
  listDiscountsQuery,
  updateDiscountBody,
  type DiscountEntity,
} from '../schemas/discounts.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';
import { escapeLike } from '../../domain/like-patterns.ts';

const tags = ['discounts'];
// The spec gives API keys no discount operations: resource 'other' needs admin, which no key holds.
const READ = { oat: ['discounts:read'], apiKey: 'other' } as const;
const WRITE = { oat: ['discounts:write'], apiKey: 'other' } as const;

/** The rules of a discount that JSON Schema cannot state, by their 422 codes. */
const WINDOW_ERROR = { invalid_ends_at: 'ends_at is not after starts_at' };
const PRODUCT_ERROR = { invalid_product: 'a product_id names no product of the organization' };
const CODE_ERROR = { code_taken: 'another discount of the organization has this code, in any case' };

export const discountsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  creationRoutes(app, deps);
  readRoutes(app, deps);
  updateRoutes(app, deps);
  deleteRoutes(app, deps);
};

/** POST /: a discount, one of the four variants of its body (type × duration). */
function creationRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Create a discount',
        description:
          'percentage (basis_points 1–10000) or fixed (amount in cents and a lower-case currency); optional code, ' +
          'unique per organization regardless of case; duration once, forever or repeating (with duration_in_months) ' +
          'for subscriptions; starts_at/ends_at window; max_redemptions; product_ids restricts the discount to ' +
          'those products of the organization. The body is one of four variants (type × duration): a field of ' +
          'another variant is a 400. 422 `invalid_ends_at` when ends_at is not after starts_at, 422 ' +
          '`invalid_product` for a product_id of no product of the organization, 422 `code_taken` for a code in use.',
        body: createDiscountBody,
        response: {
          201: discountSchema,
          ...errorResponses,
          422: validationErrors({ ...WINDOW_ERROR, ...PRODUCT_ERROR, ...CODE_ERROR }),
        },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      const startsAt = body.starts_at ? new Date(body.starts_at) : null;
      const endsAt = body.ends_at ? new Date(body.ends_at) : null;
      assertWindow(startsAt, endsAt);
      const productIds = distinctIds(body.product_ids ?? []);
      const em = deps.orm.em.fork();
      const discount = await uniqueCode(() =>
        em.transactional(async (tx) => {
          await assertOwnProducts(tx, organizationId, productIds);
          const created = createDiscount(tx, {
            id: uuidv7(),
            organizationId,
            name: body.name,
            code: body.code ?? null,
            type: body.type,
            basisPoints: body.type === 'percentage' ? body.basis_points : null,
            amount: body.type === 'fixed' ? body.amount : null,
            currency: body.type === 'fixed' ? body.currency : null,
            duration: body.duration,
            durationInMonths: body.duration === 'repeating' ? body.duration_in_months : null,
            startsAt,
            endsAt,
            maxRedemptions: body.max_redemptions ?? null,
            redemptionsCount: 0,
            productIds,
            metadata: body.metadata ?? {},
            createdAt: new Date(),
            modifiedAt: null,
            deletedAt: null,
          });
          recordEvent(tx, organizationId, 'discount.created', discountRecord(created));
          return created;
        }),
      );
      return reply.status(201).send(discountRecord(discount));
    },
  );
}

/** GET / and GET /:id: the discounts that are not deleted. */
function readRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'List discounts',
        description:
          'Filters: query (part of the name or code, case-insensitive), code (exact, case-insensitive). sorting: ' +
          'created_at or name, with a leading minus for descending (default -created_at). Deleted discounts are not listed.',
        querystring: listDiscountsQuery,
        response: { 200: paginated(discountSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const where: FilterQuery<DiscountEntity> = { organizationId, deletedAt: null };
      if (q.code !== undefined) where.code = { $ilike: escapeLike(q.code) };
      if (q.query !== undefined && q.query !== '') {
        const pattern = `%${escapeLike(q.query)}%`;
        where.$or = [{ name: { $ilike: pattern } }, { code: { $ilike: pattern } }];
      }
      const [rows, total] = await discountPage(deps.orm.em.fork(), where, {
        orderBy: orderBy(q.sorting, { created_at: 'createdAt', name: 'name' }, '-created_at'),
        limit: q.limit,
        offset: pageOffset(q),
      });
      return pageOf(rows.map(discountRecord), total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'Get a discount',
        params: discountParams,
        response: { 200: discountSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      return discountRecord(await ownDiscount(deps.orm.em.fork(), organizationId, request.params.id));
    },
  );
}

/** PATCH /:id: the mutable fields; the amount, type and duration are fixed at creation. */
function updateRoutes(app: RouteApp, deps: RouteDeps): void {
  app.patch(
    '/:id',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Update a discount',
        description:
          'name, code, ends_at, max_redemptions, product_ids and metadata; null clears a nullable field. type, ' +
          'basis_points, amount, currency, duration, duration_in_months and starts_at are immutable (400): create a new ' +
          "discount instead. 422 `invalid_ends_at` when ends_at is not after the discount's starts_at, 422 " +
          '`max_redemptions_below_redemptions` when max_redemptions is below redemptions_count.',
        params: discountParams,
        body: updateDiscountBody,
        response: {
          200: discountSchema,
          ...errorResponses,
          422: validationErrors({
            ...WINDOW_ERROR,
            ...PRODUCT_ERROR,
            ...CODE_ERROR,
            max_redemptions_below_redemptions: 'max_redemptions is below redemptions_count',
          }),
        },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      const em = deps.orm.em.fork();
      return uniqueCode(() =>
        em.transactional(async (tx) => {
          // Locked: a redemption racing a lowered max_redemptions waits, then sees the new limit.
          const d = await ownDiscount(tx, organizationId, request.params.id, true);
          const before = JSON.stringify(discountRecord(d));
          const endsAt = body.ends_at === undefined ? undefined : body.ends_at === null ? null : new Date(body.ends_at);
          assertWindow(d.startsAt ? new Date(d.startsAt) : null, endsAt ?? null);
          const refusal = maxRedemptionsRefusal(body.max_redemptions, d.redemptionsCount);
          if (refusal) throw unprocessable(refusal.code, refusal.message, refusal.detail);
          let productIds: string[] | undefined;
          if (body.product_ids !== undefined) {
            productIds = distinctIds(body.product_ids);
            await assertOwnProducts(tx, organizationId, productIds);
          }

          if (body.name !== undefined) d.name = body.name;
          if (body.code !== undefined) d.code = body.code;
          if (endsAt !== undefined) d.endsAt = endsAt;
          if (body.max_redemptions !== undefined) d.maxRedemptions = body.max_redemptions;
          if (productIds !== undefined) d.productIds = productIds;
          if (body.metadata !== undefined) d.metadata = body.metadata;
          if (JSON.stringify(discountRecord(d)) !== before) {
            d.modifiedAt = new Date();
            recordEvent(tx, organizationId, 'discount.updated', discountRecord(d));
          }
          return discountRecord(d);
        }),
      );
    },
  );
}

/** DELETE /:id: a soft delete; sales keep their reference. */
function deleteRoutes(app: RouteApp, deps: RouteDeps): void {
  app.delete(
    '/:id',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Delete a discount',
        description:
          'Soft delete: the discount leaves the API (404 afterwards) and no longer applies to new or open checkouts; ' +
          'its code can be used again. Sales keep their reference to it.',
        params: discountParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      await deps.orm.em.fork().transactional(async (tx) => {
        const d = await ownDiscount(tx, organizationId, request.params.id, true);
        const now = new Date();
        d.deletedAt = now;
        d.modifiedAt = now;
        recordEvent(tx, organizationId, 'discount.deleted', discountRecord(d));
      });
      return reply.status(204).send(null);
    },
  );
}

/** A live discount of the organization; deleted, foreign or malformed ids are a 404. */
export async function ownDiscount(
  em: EntityManager,
  organizationId: string,
  id: string,
  lock = false,
): Promise<DiscountEntity> {
  const discount = isUuid(id) ? await findDiscount(em, organizationId, id, lock) : null;
  if (!discount) throw notFound('Discount');
  return discount;
}

/** The live discount a buyer's code names (case-insensitive), or null. For checkout confirmation. */
export async function discountByCode(
  em: EntityManager,
  organizationId: string,
  code: string,
): Promise<DiscountEntity | null> {
  return discountByCodePattern(em, organizationId, escapeLike(code));
}

/**
 * ends_at after starts_at: a rule between two fields (on update, between the body and the stored
 * discount) that JSON Schema cannot state, so a well-formed body that breaks it is a 422.
 */
function assertWindow(startsAt: Date | null, endsAt: Date | null): void {
  if (startsAt && endsAt && endsAt.getTime() <= startsAt.getTime()) {
    throw unprocessable('invalid_ends_at', 'ends_at must be after starts_at', 'body.ends_at: must be after starts_at');
  }
}

/** Every id must be a product of the organization (archived ones included: the restriction is a filter). */
async function assertOwnProducts(tx: EntityManager, organizationId: string, productIds: string[]): Promise<void> {
  if (productIds.length === 0) return;
  const known = new Set(await ownProductIds(tx, organizationId, productIds));
  const unknown = productIds.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw unprocessable('invalid_product', 'Product not found', `product_ids: ${unknown.join(', ')}`);
  }
}

/** The unique index is the source of truth, so two concurrent creates with one code give one success. */
async function uniqueCode<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      const constraint = (err as { constraint?: string }).constraint;
      if (constraint === 'discounts_org_code_uq') {
        throw unprocessable('code_taken', 'Code already in use', 'Another discount of this organization has this code');
      }
    }
    throw err;
  }
}

/** UUIDs as PostgreSQL prints them (lower case), each once. */
function distinctIds(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}
