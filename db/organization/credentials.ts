import { LockMode, type InferEntity, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import type { ApiKeyScope } from '../../domain/api-key-scopes.ts';
import { ApiKey, OrganizationAccessToken } from '../entities/credentials.ts';
import { firstRow, kyselyOf, prepared } from '../kysely.ts';
import type { EntityPage } from './organizations.ts';

/**
 * The organization object's credentials: API keys (`api_keys`) and Organization Access Tokens
 * (`organization_access_tokens`), known by the hash of their secret.
 */

export type ApiKeyRow = InferEntity<typeof ApiKey>;
export type AccessTokenRow = InferEntity<typeof OrganizationAccessToken>;

/**
 * The API key with this secret hash, as the auth plugin checks it: every request whose credential is
 * not cached yet, so a prepared statement (db/kysely.ts `prepared`).
 */
export const apiKeyByHash = firstRow(
  prepared('api_key_by_hash', ApiKey, (db, secretHash: string) =>
    db
      .selectFrom('api_keys')
      .select(['id', 'organizationId', 'scopes', 'expiresAt', 'revokedAt', 'deletedAt'])
      .where('secretHash', '=', secretHash),
  ),
);

/** The access token with this hash, as the auth plugin checks it (prepared, as `apiKeyByHash`). */
export const accessTokenByHash = firstRow(
  prepared('access_token_by_hash', OrganizationAccessToken, (db, tokenHash: string) =>
    db
      .selectFrom('organization_access_tokens')
      .select(['id', 'organizationId', 'scopes', 'expiresAt', 'revokedAt'])
      .where('tokenHash', '=', tokenHash),
  ),
);

/** A new API key, flushed with the caller's transaction. */
export function createApiKey(tx: EntityManager, key: RequiredEntityData<ApiKeyRow>): ApiKeyRow {
  return tx.create(ApiKey, key);
}

/** A new access token, flushed with the caller's transaction. */
export function createAccessToken(tx: EntityManager, token: RequiredEntityData<AccessTokenRow>): AccessTokenRow {
  return tx.create(OrganizationAccessToken, token);
}

/** The organization's API keys that are not deleted, newest first. */
export async function listApiKeys(em: EntityManager, organizationId: string): Promise<ApiKeyRow[]> {
  return em.find(ApiKey, { organizationId, deletedAt: null }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}

/** One page of the organization's access tokens that are not revoked, and how many there are. */
export async function accessTokenPage(
  em: EntityManager,
  organizationId: string,
  page: EntityPage,
): Promise<[AccessTokenRow[], number]> {
  return em.findAndCount(
    OrganizationAccessToken,
    { organizationId, revokedAt: null },
    { orderBy: page.orderBy, limit: page.limit, offset: page.offset },
  );
}

/** The organization's API key that is not deleted, locked so two revocations cannot both record it. */
export async function lockApiKey(tx: EntityManager, organizationId: string, id: string): Promise<ApiKeyRow | null> {
  return tx.findOne(ApiKey, { id, organizationId, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** The organization's access token that is not revoked, locked for its revocation. */
export async function lockAccessToken(
  tx: EntityManager,
  organizationId: string,
  id: string,
): Promise<AccessTokenRow | null> {
  return tx.findOne(
    OrganizationAccessToken,
    { id, organizationId, revokedAt: null },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
}

/** Each credential's latest use, batched: a use never moves `last_used_at` back. */
export async function recordCredentialUse(
  em: EntityManager,
  table: 'api_keys' | 'organization_access_tokens',
  uses: readonly { id: string; at: Date }[],
): Promise<void> {
  const db = kyselyOf(em);
  // One statement per credential: uses are batched per flush, and a credential's latest use is what counts.
  const latest = new Map<string, Date>();
  for (const use of uses) {
    const known = latest.get(use.id);
    if (!known || known < use.at) latest.set(use.id, use.at);
  }
  for (const [id, at] of latest) {
    await db
      .updateTable(table)
      .set((eb) => ({
        lastUsedAt: eb.fn<Date>('greatest', [eb.fn('coalesce', ['lastUsedAt', eb.val(at)]), eb.val(at)]),
      }))
      .where('id', '=', id)
      .execute();
  }
}

/**
 * Inside the revoking transaction: a notice on `channel` that PostgreSQL delivers to every listener
 * when (and only if) the transaction commits.
 */
export async function announceOnCommit(tx: EntityManager, channel: string, payload: string): Promise<void> {
  await kyselyOf(tx)
    .selectNoFrom((eb) => eb.fn('pg_notify', [eb.val(channel), eb.val(payload)]).as('notified'))
    .execute();
}

/** What a seeded credential is made of (the seeds of `npm start` and of the fuzz run). */
interface SeededCredential {
  organizationId: string;
  createdByUserId: string | null;
}

/** Writes an API key at once (the seeds). */
export async function insertApiKey(
  em: EntityManager,
  key: SeededCredential & {
    name: string;
    environment: 'live' | 'test';
    scopes: ApiKeyScope[];
    maskedKey: string;
    secretHash: string;
  },
): Promise<void> {
  await kyselyOf(em)
    .insertInto('api_keys')
    .values({
      ...key,
      id: uuidv7(),
      createdAt: new Date(),
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
      deletedAt: null,
    })
    .execute();
}

/** Writes an access token at once (the seeds). */
export async function insertAccessToken(
  em: EntityManager,
  token: SeededCredential & { comment: string; scopes: string[]; maskedToken: string; tokenHash: string },
): Promise<void> {
  await kyselyOf(em)
    .insertInto('organization_access_tokens')
    .values({ ...token, id: uuidv7(), createdAt: new Date(), lastUsedAt: null, expiresAt: null, revokedAt: null })
    .execute();
}
