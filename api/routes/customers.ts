import { LockMode, UniqueConstraintViolationException, type FilterQuery, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { parseTaxId, type TaxId } from '../../domain/tax-id.ts';
import { Customer } from '../../db/entities/customer.ts';
import { recordEvent } from '../../db/events.ts';
import { sqlIn } from '../../db/plain-sql.ts';
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
  createCustomerBody,
  customerIdParams,
  customerRecord,
  customerSchema,
  externalIdParams,
  listCustomersQuery,
  updateCustomerBody,
  type UpdateCustomerBody,
  storedBillingAddress,
} from '../../use-cases/schemas/customers.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

type CustomerEntity = InferEntity<typeof Customer>;
/** A customer is addressed by our id or by the merchant's external_id; both routes behave the same. */
type CustomerKey = { id: string } | { externalId: string };

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
          const created = tx.create(Customer, {
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
      if (q.query !== undefined && q.query !== '') {
        const pattern = `%${escapeLike(q.query)}%`;
        where.$or = [{ email: { $ilike: pattern } }, { name: { $ilike: pattern } }];
      }
      const [rows, total] = await deps.orm.em.fork().findAndCount(Customer, where, {
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
      const key = keyOf(request.params);
      const taxId = request.body.tax_id == null ? request.body.tax_id : validTaxId(request.body.tax_id);
      const em = deps.orm.em.fork();
      const customer = await uniquely(() =>
        em.transactional(async (tx) => {
          // Locked, so two concurrent metadata merges both land.
          const current = await findCustomer(tx, organizationId, key, true);
          const changed = applyUpdate(current, request.body, taxId);
          if (changed.length > 0) {
            current.updatedAt = new Date();
            recordEvent(tx, organizationId, 'customer.updated', {
              ...customerRecord(current),
              changed_fields: changed,
            });
          }
          return current;
        }),
      );
      return customerRecord(customer);
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
        const sessions = await sqlIn(tx)<{ token_hash: string }>(
          'delete from customer_sessions where customer_id = ? returning token_hash',
          [current.id],
        );
        for (const { token_hash } of sessions) await deps.cache.announceRevocation(tx, token_hash);
        return sessions.map((s) => s.token_hash);
      });
      await Promise.all(sessionHashes.map((hash) => deps.cache.revoked(hash)));
      return reply.status(204).send(null);
    },
  );
}

async function findCustomer(
  em: EntityManager,
  organizationId: string,
  key: CustomerKey,
  lock = false,
): Promise<CustomerEntity> {
  // A malformed id names no customer: 404, like any other unknown id.
  if ('id' in key && !isUuid(key.id)) throw notFound('Customer');
  const where: FilterQuery<CustomerEntity> =
    'id' in key
      ? { id: key.id, organizationId, deletedAt: null }
      : { externalId: key.externalId, organizationId, deletedAt: null };
  const customer = await em.findOne(Customer, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!customer) throw notFound('Customer');
  return customer;
}

/**
 * Applies the sent fields of a PATCH (absent: untouched; null: cleared) and returns the names of the
 * fields whose value really changed.
 */
function applyUpdate(c: CustomerEntity, body: UpdateCustomerBody, taxId: TaxId | null | undefined): string[] {
  const changed: string[] = [];
  const set = <K extends keyof CustomerEntity>(wire: string, prop: K, value: CustomerEntity[K]) => {
    if (sameJson(c[prop], value)) return;
    c[prop] = value;
    changed.push(wire);
  };
  if (body.email !== undefined) set('email', 'email', body.email);
  if (body.name !== undefined) set('name', 'name', body.name);
  if (body.billing_name !== undefined) set('billing_name', 'billingName', body.billing_name);
  if (body.billing_address !== undefined) {
    set('billing_address', 'billingAddress', body.billing_address ? storedBillingAddress(body.billing_address) : null);
  }
  if (taxId !== undefined) set('tax_id', 'taxId', taxId);
  if (body.user_metadata !== undefined)
    set('user_metadata', 'userMetadata', mergeMetadata(c.userMetadata, body.user_metadata));
  if (body.email_verified !== undefined) set('email_verified', 'emailVerified', body.email_verified);
  // A verification of the old address says nothing about the new one.
  else if (changed.includes('email')) set('email_verified', 'emailVerified', false);
  return changed;
}

/** Sent keys are added or updated, others kept; a null value removes its key. */
function mergeMetadata(current: Record<string, unknown>, sent: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...current };
  for (const [key, value] of Object.entries(sent)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * CPF/CNPJ check digits, and a given type that agrees with them: rules of the digits that the
 * document states only as formats (`cpf`, `cnpj`, `cpf-cnpj`), so a well-formed tax_id that breaks
 * them is a 422 of its own code, naming the field.
 */
function validTaxId(input: string | { type?: 'cpf' | 'cnpj'; number: string }): TaxId {
  const parsed = parseTaxId(input);
  if (parsed) return parsed;
  const other = typeof input === 'string' || input.type === undefined ? null : parseTaxId(input.number);
  const detail =
    other && typeof input !== 'string'
      ? `body.tax_id: type is ${input.type} but the number is a valid ${other.type}`
      : 'body.tax_id: not a valid CPF (11 digits) or CNPJ (14 digits); the check digits do not match';
  throw unprocessable('invalid_tax_id', 'Invalid tax_id', detail);
}

/** The unique indexes are the source of truth, so concurrent creates still give exactly one success. */
async function uniquely<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      const constraint = (err as { constraint?: string }).constraint;
      if (constraint === 'customers_org_email_uq') {
        throw unprocessable(
          'email_taken',
          'Email already in use',
          'Another customer of this organization has this email',
        );
      }
      if (constraint === 'customers_org_external_id_uq') {
        throw unprocessable(
          'external_id_taken',
          'External id already in use',
          'Another customer of this organization has this external_id',
        );
      }
    }
    throw err;
  }
}

/** Escapes LIKE wildcards so user input matches literally. */
function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** Equality that ignores key order, which jsonb does not keep. */
function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
