import type { FilterQuery } from '@mikro-orm/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { createCustomer, customerPage, type CustomerRow } from '../../db/customer/customers.ts';
import { endCustomerSessions } from '../../db/customer/sessions.ts';
import { recordEvent } from '../../db/events.ts';
import { CUSTOMER_SEARCH_FIELDS, customerSearchPattern } from '../../domain/customer-search.ts';
import { escapeLike } from '../../domain/like-patterns.ts';
import { organizationCredential } from '../plugins/auth.ts';
import {
  errorResponses,
  orderBy,
  pageOf,
  pageOffset,
  paginated,
  validationErrors,
} from '../../use-cases/schemas/common.ts';
import {
  createCustomerBody,
  customerIdParams,
  customerRecord,
  customerSchema,
  externalIdParams,
  listCustomersQuery,
  updateCustomerBody,
  storedBillingAddress,
} from '../../use-cases/schemas/customers.ts';
import {
  findCustomer,
  mergeMetadata,
  uniquely,
  updateCustomer,
  validTaxId,
  type CustomerKey,
} from '../customer-writes.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

type CustomerEntity = CustomerRow;

const READ = { oat: ['customers:read'], apiKey: 'customers' } as const;
const WRITE = { oat: ['customers:write'], apiKey: 'customers' } as const;

const TAX_ID_RULE = 'tax_id is not a valid CPF or CNPJ (check digits), or its type is not the kind its number is';
/** The 422s of creating and of updating a customer. */
const CREATE_ERRORS = validationErrors({
  invalid_tax_id: TAX_ID_RULE,
  email_taken: 'another customer of the organization has this email',
  external_id_taken: 'another customer of the organization has this external_id',
});
const UPDATE_ERRORS = validationErrors({
  invalid_tax_id: TAX_ID_RULE,
  email_taken: 'another customer of the organization has this email',
});

export const customersRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  creationRoutes(app, deps);
  listRoutes(app, deps);

  // `/:id` and `/external/:external_id` share their handlers; only the lookup key differs.
  for (const family of ['id', 'external'] as const) {
    const path = family === 'id' ? '/:id' : '/external/:external_id';
    const params = family === 'id' ? customerIdParams : externalIdParams;
    const keyOf = (p: Record<string, string>): CustomerKey =>
      family === 'id' ? { id: p.id! } : { externalId: p.external_id! };
    const by = family === 'id' ? 'by id' : 'by external_id';
    const lookup = { path, params, keyOf, by };
    getRoute(app, deps, lookup);
    updateRoute(app, deps, lookup);
    deleteRoute(app, deps, lookup);
  }
};

/** POST /: a customer, its email and external_id unique in the organization. */
function creationRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags: ['customers'],
        summary: 'Create a customer',
        body: createCustomerBody,
        response: { 201: customerSchema, ...errorResponses, 422: CREATE_ERRORS },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      const taxId = body.tax_id == null ? null : validTaxId(body.tax_id);
      const now = new Date();
      const em = deps.orm.em.fork();
      const customer = await uniquely(() =>
        em.transactional(async (tx) => {
          const created = createCustomer(tx, {
            id: uuidv7(),
            organizationId,
            email: body.email,
            name: body.name ?? null,
            externalId: body.external_id ?? null,
            billingName: body.billing_name ?? null,
            billingAddress: body.billing_address ? storedBillingAddress(body.billing_address) : null,
            taxId,
            userMetadata: mergeMetadata({}, body.user_metadata ?? {}),
            emailVerified: body.email_verified ?? false,
            avatarUrl: null,
            createdAt: now,
            updatedAt: now,
            deletedAt: null,
          });
          recordEvent(tx, organizationId, 'customer.created', customerRecord(created));
          return created;
        }),
      );
      return reply.status(201).send(customerRecord(customer));
    },
  );
}

/** GET /: the customers, found by email, external_id or part of the name or email. */
function listRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags: ['customers'],
        summary: 'List customers',
        description:
          'Filters: email (exact, case-insensitive), external_id (exact), query (part of the email or name, case-insensitive). ' +
          'sorting: created_at, email or name, with a leading minus for descending (default -created_at). Deleted customers are not listed.',
        querystring: listCustomersQuery,
        response: { 200: paginated(customerSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const where: FilterQuery<CustomerEntity> = { organizationId, deletedAt: null };
      if (q.email !== undefined) where.email = { $ilike: escapeLike(q.email) };
      if (q.external_id !== undefined) where.externalId = q.external_id;
      const pattern = customerSearchPattern(q.query);
      if (pattern !== null) where.$or = CUSTOMER_SEARCH_FIELDS.map((field) => ({ [field]: { $ilike: pattern } }));
      const [rows, total] = await customerPage(deps.orm.em.fork(), where, {
        orderBy: orderBy(q.sorting, { created_at: 'createdAt', email: 'email', name: 'name' }, '-created_at'),
        limit: q.limit,
        offset: pageOffset(q),
      });
      return pageOf(rows.map(customerRecord), total, q.limit);
    },
  );
}

/** How a route of one customer finds it: by our id (`/:id`) or by the merchant's (`/external/:external_id`). */
interface CustomerLookup {
  path: string;
  params: typeof customerIdParams | typeof externalIdParams;
  keyOf: (p: Record<string, string>) => CustomerKey;
  /** How the summaries name the lookup. */
  by: string;
}

/** GET /:id (or /external/:external_id): the customer. */
function getRoute(app: RouteApp, deps: RouteDeps, lookup: CustomerLookup): void {
  const { path, params, keyOf, by } = lookup;
  app.get(
    path,
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags: ['customers'],
        summary: `Get a customer ${by}`,
        params,
        response: { 200: customerSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const customer = await findCustomer(deps.orm.em.fork(), organizationId, keyOf(request.params));
      return customerRecord(customer);
    },
  );
}

/** PATCH /:id (or /external/:external_id): the sent fields change, under the customer's lock. */
function updateRoute(app: RouteApp, deps: RouteDeps, lookup: CustomerLookup): void {
  const { path, params, keyOf, by } = lookup;
  app.patch(
    path,
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags: ['customers'],
        summary: `Update a customer ${by}`,
        description:
          'Only the sent fields change; null clears a nullable field. billing_address replaces the previous address ' +
          'entirely; user_metadata is merged (a null value removes that key). Changing email resets email_verified ' +
          'unless the same request sets it.',
        params,
        body: updateCustomerBody,
        response: { 200: customerSchema, ...errorResponses, 422: UPDATE_ERRORS },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      return customerRecord(await updateCustomer(deps.orm, organizationId, keyOf(request.params), request.body));
    },
  );
}

/** DELETE /:id (or /external/:external_id): a soft delete; the customer's portal sessions end with it. */
function deleteRoute(app: RouteApp, deps: RouteDeps, lookup: CustomerLookup): void {
  const { path, params, keyOf, by } = lookup;
  app.delete(
    path,
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags: ['customers'],
        summary: `Delete a customer ${by}`,
        description:
          'Soft delete: the customer disappears from the API and its email and external_id can be used again.',
        params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const key = keyOf(request.params);
      const sessionHashes = await deps.orm.em.fork().transactional(async (tx) => {
        const current = await findCustomer(tx, organizationId, key, true);
        const now = new Date();
        current.deletedAt = now;
        current.updatedAt = now;
        recordEvent(tx, organizationId, 'customer.deleted', customerRecord(current));
        // A deleted customer's portal sessions end with it, in every API process.
        const hashes = await endCustomerSessions(tx, current.id);
        for (const hash of hashes) await deps.cache.announceRevocation(tx, hash);
        return hashes;
      });
      await Promise.all(sessionHashes.map((hash) => deps.cache.revoked(hash)));
      return reply.status(204).send(null);
    },
  );
}
