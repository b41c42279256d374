import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { hashSecret, maskSecret, newSecret, TOKEN_PREFIX } from '../auth/tokens.ts';
import { forbidden, notFound, unprocessable } from '../../use-cases/errors.ts';
import { userCredential } from '../plugins/auth.ts';
import {
  errorResponses,
  iso,
  orderBy,
  pageOf,
  pageOffset,
  paginated,
  isUuid,
  validationErrors,
} from '../../use-cases/schemas/common.ts';
import {
  accessTokenSchema,
  apiKeyListSchema,
  apiKeySchema,
  createAccessTokenBody,
  createApiKeyBody,
  createdAccessTokenSchema,
  createdApiKeySchema,
  listAccessTokensQuery,
  organizationCredentialParams,
  organizationParams,
  type AccessTokenRecord,
  type ApiKeyRecord,
  type ApiKeyStatus,
} from '../schemas/credentials.ts';
import { recordEvent } from '../../db/events.ts';
import {
  accessTokenPage,
  createAccessToken,
  createApiKey,
  listApiKeys,
  lockAccessToken,
  lockApiKey,
  type AccessTokenRow,
  type ApiKeyRow,
} from '../../db/organization/credentials.ts';
import { roleOf } from '../../db/organization/members.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';
import { dashboardMemberRoutes } from './dashboard-members.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The hook of the routes that take a user JWT only. */
type UserOnly = { onRequest: ReturnType<RouteApp['authenticate']> };

/** The 422 of creating a key or a token. */
const EXPIRY_ERRORS = validationErrors({ invalid_expires_at: 'expires_at is not in the future' });

/**
 * The dashboard's credential management: API keys (spec, Authentication → API keys) and
 * Organization Access Tokens. A user JWT of the organization's owner or admin is required; a
 * member gets 403 and anyone else 404, so the organization's existence is not revealed.
 */
export const dashboardRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const asUser = { onRequest: app.authenticate({ user: true }) };

  apiKeyCreationRoutes(app, deps, asUser);
  apiKeyRoutes(app, deps, asUser);
  accessTokenCreationRoutes(app, deps, asUser);
  accessTokenRoutes(app, deps, asUser);
  dashboardMemberRoutes(app, deps, asUser);
};

/** API keys (spec, Authentication → API keys): creating one, its secret shown only then. */
function apiKeyCreationRoutes(app: RouteApp, deps: RouteDeps, asUser: UserOnly): void {
  app.post(
    '/organizations/:organization_id/api-keys',
    {
      ...asUser,
      schema: {
        tags: ['dashboard'],
        summary: 'Create an API key (the secret is shown only in this response)',
        params: organizationParams,
        body: createApiKeyBody,
        response: { 201: createdApiKeySchema, ...errorResponses, 422: EXPIRY_ERRORS },
      },
    },
    async (request, reply) => {
      const { organization_id: organizationId } = request.params;
      const { userId } = userCredential(request);
      const body = request.body;
      const now = new Date();
      const prefix = body.environment === 'live' ? TOKEN_PREFIX.apiKeyLive : TOKEN_PREFIX.apiKeyTest;
      const secret = newSecret(prefix);

      const em = deps.orm.em.fork();
      const key = await em.transactional(async (tx) => {
        await requireCredentialManager(tx, organizationId, userId);
        const expiresAt = futureExpiry(body.expires_at, now);
        const key = createApiKey(tx, {
          id: uuidv7(),
          organizationId,
          name: body.name,
          environment: body.environment,
          scopes: [...new Set(body.scopes)].sort(),
          maskedKey: maskSecret(secret, prefix),
          secretHash: hashSecret(secret),
          createdByUserId: userId,
          createdAt: now,
          lastUsedAt: null,
          expiresAt,
          revokedAt: null,
          deletedAt: null,
        });
        recordEvent(tx, organizationId, 'api_key.created', apiKeyRecord(key, now));
        return key;
      });
      return reply.status(201).send({ ...apiKeyRecord(key, now), key: secret });
    },
  );
}

/** The API keys listed, revoked, and deleted (a revocation that also leaves the list). */
function apiKeyRoutes(app: RouteApp, deps: RouteDeps, asUser: UserOnly): void {
  app.get(
    '/organizations/:organization_id/api-keys',
    {
      ...asUser,
      schema: {
        tags: ['dashboard'],
        summary: 'List API keys: active (and expired) keys, and revoked keys in their own section',
        params: organizationParams,
        response: { 200: apiKeyListSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organization_id: organizationId } = request.params;
      const em = deps.orm.em.fork();
      await requireCredentialManager(em, organizationId, userCredential(request).userId);
      const keys = await listApiKeys(em, organizationId);
      const now = new Date();
      const records = keys.map((k) => apiKeyRecord(k, now));
      return { active: records.filter((k) => !k.revoked), revoked: records.filter((k) => k.revoked) };
    },
  );

  app.post(
    '/organizations/:organization_id/api-keys/:id/revoke',
    {
      ...asUser,
      schema: {
        tags: ['dashboard'],
        summary: 'Revoke an API key: the next request with it is a 401 on every API process',
        description:
          'Idempotent: revoking a revoked key answers 200 with the key as it is. Name, last use and creation data are kept.',
        params: organizationCredentialParams,
        response: { 200: apiKeySchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organization_id: organizationId, id } = request.params;
      const key = await revokeApiKey(deps, organizationId, userCredential(request).userId, id, { delete: false });
      return apiKeyRecord(key, new Date());
    },
  );

  app.delete(
    '/organizations/:organization_id/api-keys/:id',
    {
      ...asUser,
      schema: {
        tags: ['dashboard'],
        summary: 'Delete an API key: revokes it and removes it from the list (the row is kept for audit)',
        params: organizationCredentialParams,
        response: { 204: z.null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organization_id: organizationId, id } = request.params;
      await revokeApiKey(deps, organizationId, userCredential(request).userId, id, { delete: true });
      return reply.status(204).send(null);
    },
  );
}

/** Organization Access Tokens: creating one, the token shown only then. */
function accessTokenCreationRoutes(app: RouteApp, deps: RouteDeps, asUser: UserOnly): void {
  app.post(
    '/organizations/:organization_id/access-tokens',
    {
      ...asUser,
      schema: {
        tags: ['dashboard'],
        summary: 'Create an Organization Access Token (the token is shown only in this response)',
        params: organizationParams,
        body: createAccessTokenBody,
        response: { 201: createdAccessTokenSchema, ...errorResponses, 422: EXPIRY_ERRORS },
      },
    },
    async (request, reply) => {
      const { organization_id: organizationId } = request.params;
      const { userId } = userCredential(request);
      const body = request.body;
      const now = new Date();
      const token = newSecret(TOKEN_PREFIX.oat);

      const em = deps.orm.em.fork();
      const row = await em.transactional(async (tx) => {
        await requireCredentialManager(tx, organizationId, userId);
        const expiresAt =
          body.expires_in_days !== undefined
            ? new Date(now.getTime() + body.expires_in_days * DAY_MS)
            : futureExpiry(body.expires_at, now);
        const row = createAccessToken(tx, {
          id: uuidv7(),
          organizationId,
          comment: body.comment,
          scopes: [...new Set(body.scopes)].sort(),
          maskedToken: maskSecret(token, TOKEN_PREFIX.oat),
          tokenHash: hashSecret(token),
          createdByUserId: userId,
          createdAt: now,
          lastUsedAt: null,
          expiresAt,
          revokedAt: null,
        });
        recordEvent(tx, organizationId, 'access_token.created', accessTokenRecord(row));
        return row;
      });
      return reply.status(201).send({ ...accessTokenRecord(row), token });
    },
  );
}

/** The Organization Access Tokens listed, and revoked. */
function accessTokenRoutes(app: RouteApp, deps: RouteDeps, asUser: UserOnly): void {
  app.get(
    '/organizations/:organization_id/access-tokens',
    {
      ...asUser,
      schema: {
        tags: ['dashboard'],
        summary: 'List the Organization Access Tokens that are not revoked',
        params: organizationParams,
        querystring: listAccessTokensQuery,
        response: { 200: paginated(accessTokenSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { organization_id: organizationId } = request.params;
      const { page, limit, sorting } = request.query;
      const em = deps.orm.em.fork();
      await requireCredentialManager(em, organizationId, userCredential(request).userId);
      const [rows, total] = await accessTokenPage(em, organizationId, {
        orderBy: orderBy(
          sorting,
          { created_at: 'createdAt', expires_at: 'expiresAt', last_used_at: 'lastUsedAt' },
          '-created_at',
        ),
        limit,
        offset: pageOffset({ page, limit }),
      });
      return pageOf(rows.map(accessTokenRecord), total, limit);
    },
  );

  app.delete(
    '/organizations/:organization_id/access-tokens/:id',
    {
      ...asUser,
      schema: {
        tags: ['dashboard'],
        summary: 'Revoke an Organization Access Token: the next request with it is a 401 on every API process',
        params: organizationCredentialParams,
        response: { 204: z.null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organization_id: organizationId, id } = request.params;
      const { userId } = userCredential(request);
      const em = deps.orm.em.fork();
      const row = await em.transactional(async (tx) => {
        await requireCredentialManager(tx, organizationId, userId);
        const row = isUuid(id) ? await lockAccessToken(tx, organizationId, id) : null;
        if (!row) throw notFound('Access token');
        row.revokedAt = new Date();
        await deps.cache.announceRevocation(tx, row.tokenHash);
        recordEvent(tx, organizationId, 'access_token.revoked', accessTokenRecord(row));
        return row;
      });
      await deps.cache.revoked(row.tokenHash);
      return reply.status(204).send(null);
    },
  );
}

/**
 * Only the organization's owner or admin manages its credentials (spec, API keys point 1). A member
 * is told no (403); a non-member, or an organization that does not exist, is a 404.
 */
async function requireCredentialManager(em: EntityManager, organizationId: string, userId: string): Promise<void> {
  if (!isUuid(organizationId)) throw notFound('Organization');
  const role = await roleOf(em, organizationId, userId);
  if (!role) throw notFound('Organization');
  if (role !== 'owner' && role !== 'admin') {
    throw forbidden('Only the organization owner or an admin can manage API keys and access tokens');
  }
}

async function revokeApiKey(
  deps: RouteDeps,
  organizationId: string,
  userId: string,
  id: string,
  options: { delete: boolean },
): Promise<ApiKeyRow> {
  const em = deps.orm.em.fork();
  const { key, announced } = await em.transactional(async (tx) => {
    await requireCredentialManager(tx, organizationId, userId);
    // Locked, so two revocations of one key cannot both announce and record it.
    const key = isUuid(id) ? await lockApiKey(tx, organizationId, id) : null;
    if (!key) throw notFound('API key');
    const now = new Date();
    const announced = key.revokedAt === null;
    if (announced) {
      key.revokedAt = now;
      await deps.cache.announceRevocation(tx, key.secretHash);
      recordEvent(tx, organizationId, 'api_key.revoked', apiKeyRecord(key, now));
    }
    if (options.delete) {
      key.deletedAt = now;
      recordEvent(tx, organizationId, 'api_key.deleted', apiKeyRecord(key, now));
    }
    return { key, announced };
  });
  if (announced) await deps.cache.revoked(key.secretHash);
  return key;
}

/**
 * An expiry must lie in the future: a key or token that is born expired is a mistake of the caller.
 * A rule of the clock, which JSON Schema cannot state: a well-formed expires_at in the past is a 422.
 */
function futureExpiry(expiresAt: string | undefined, now: Date): Date | null {
  if (expiresAt === undefined) return null;
  const at = new Date(expiresAt);
  if (at.getTime() <= now.getTime()) {
    throw unprocessable(
      'invalid_expires_at',
      'expires_at must be in the future',
      `body.expires_at: ${expiresAt} is not in the future`,
    );
  }
  return at;
}

function apiKeyStatus(key: ApiKeyRow, now: Date): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

function apiKeyRecord(key: ApiKeyRow, now: Date): ApiKeyRecord {
  return {
    id: key.id,
    name: key.name,
    environment: key.environment,
    scopes: key.scopes,
    masked_key: key.maskedKey,
    created_at: iso(key.createdAt)!,
    last_used_at: iso(key.lastUsedAt),
    expires_at: iso(key.expiresAt),
    revoked: key.revokedAt !== null,
    revoked_at: iso(key.revokedAt),
    status: apiKeyStatus(key, now),
  };
}

function accessTokenRecord(row: AccessTokenRow): AccessTokenRecord {
  return {
    id: row.id,
    comment: row.comment,
    scopes: row.scopes,
    masked_token: row.maskedToken,
    created_at: iso(row.createdAt)!,
    expires_at: iso(row.expiresAt),
    last_used_at: iso(row.lastUsedAt),
  };
}
