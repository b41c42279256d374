import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { apiKeyAllows, oatAllows, requiredApiKeyScope, type ApiKeyResource } from '../../domain/api-key-scopes.ts';
import type { Orm } from '../../db/orm.ts';
import { accessTokenByHash, apiKeyByHash } from '../../db/organization/credentials.ts';
import { signedInUserId } from '../../db/organization/users.ts';
import { customerSessionByHash } from '../../db/customer/sessions.ts';
import { ApiError, forbidden, unauthorized } from '../../use-cases/errors.ts';
import type { CredentialCache } from '../auth/credential-cache.ts';
import { actorOf, type Credential, type OrganizationCredential } from '../auth/credentials.ts';
import { withActorHolder } from '../../db/actor-context.ts';
import type { Actor } from '../../contracts/actor.ts';
import { hashSecret, isWellFormed, presentedSecretHash, TOKEN_PREFIX, type PresentingRequest } from '../auth/tokens.ts';
import type { UserJwtVerifier } from '../auth/user-jwt.ts';
import { DashboardGrants, GRANT_PREFIX } from '../auth/dashboard-grants.ts';

/** A request with no credential: a buyer on a public page (a checkout's client secret, a link). */
const ANONYMOUS_BUYER: Actor = { type: 'customer', id: null };

/** Which credentials a route accepts. A route names only the kinds the spec allows for it. */
export interface AuthRule {
  user?: boolean;
  /** OAT accepted when it holds any of these scopes. */
  oat?: readonly string[];
  /** API key accepted; the scope it needs follows from the method and this resource (spec's table). */
  apiKey?: ApiKeyResource;
  customer?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest extends PresentingRequest {
    credential: Credential | null;
    /** Names who the request's events record as their actor (set by the onRequest hook above). */
    identifyActor: ((actor: Actor) => void) | null;
  }
  interface FastifyInstance {
    authenticate(rule: AuthRule): onRequestHookHandler;
    /**
     * The credential of a customer session token, checked as a bearer one is (a 401 ApiError
     * otherwise): for the portal's pages, which carry the token in a cookie rather than a header.
     */
    customerSession(token: string): Promise<CustomerCredential>;
    /** The credential of a user JWT (a 401 ApiError otherwise): for the dashboard's pages, which keep it in a cookie. */
    userSession(token: string): Promise<Extract<Credential, { kind: 'user' }>>;
    /** The in-process grants through which the dashboard's pages call the API as a member. */
    dashboardGrants: DashboardGrants;
  }
}

const API_KEY_MESSAGES = {
  missing: 'Missing X-Service-Api-Key header',
  invalid: 'Invalid api key',
  scope: 'Api key lacks required scope',
  expired: 'Api key expired',
};

/**
 * The credentials a route takes, in words, for its 401 and 403: a caller refused is told what would
 * have been accepted (with the API key's scope for this method), not only what was wrong.
 */
export function acceptedCredentials(rule: AuthRule, method: string): string {
  const kinds: string[] = [];
  if (rule.oat) kinds.push(`an organization access token with ${rule.oat.join(' or ')} (Authorization: Bearer)`);
  if (rule.apiKey) {
    kinds.push(`an API key with the ${requiredApiKeyScope(method, rule.apiKey)} scope (X-Service-Api-Key)`);
  }
  if (rule.user) kinds.push('a user JWT (Authorization: Bearer)');
  if (rule.customer) kinds.push('a customer session token (Authorization: Bearer)');
  return `This operation takes ${kinds.join(', or ')}`;
}

interface AuthDeps {
  orm: Orm;
  cache: CredentialCache;
  verifyUserJwt: UserJwtVerifier;
  deploymentEnv: 'test' | 'live';
}

/** `app.authenticate(rule)`: the onRequest hook that sets `request.credential`, or answers 401 or 403. */
export function registerAuth(app: FastifyInstance, deps: AuthDeps): void {
  const lookups: CredentialLookups = {
    userFor: userLookup(deps),
    apiKeyFor: apiKeyLookup(deps),
    oatFor: oatLookup(deps),
    customerFor: customerLookup(deps),
    grants: new DashboardGrants(),
  };
  app.decorateRequest('credential', null);
  app.decorateRequest('presentedSecret', null);
  app.decorateRequest('identifyActor', null);
  // Every request runs in a context whose actor its events record: the anonymous buyer until a
  // credential names someone (db/actor-context.ts). Entered here, so the route's hooks and handler run in it.
  app.addHook('onRequest', (request, _reply, done) => {
    withActorHolder(ANONYMOUS_BUYER, (identify) => {
      request.identifyActor = identify;
      done();
    });
  });

  app.decorate('customerSession', (token: string) => customerSessionFor(lookups, token));
  app.decorate('userSession', async (token: string) => {
    const credential = await lookups.userFor(token);
    if (credential.kind !== 'user') throw unauthorized('Invalid token');
    return credential;
  });
  app.decorate('dashboardGrants', lookups.grants);
  app.decorate('authenticate', (rule: AuthRule): onRequestHookHandler => {
    return async (request) => {
      request.credential = await authorize(lookups, deps.cache, request, rule);
      request.identifyActor?.(actorOf(request.credential));
    };
  });
}

/** The credential of a token of each kind: from the cache, else from its row. */
interface CredentialLookups {
  userFor(token: string): Promise<Credential>;
  /** `hash`: the token's, when the request has it already. */
  apiKeyFor(token: string, hash?: string): Promise<Extract<Credential, { kind: 'api_key' }>>;
  oatFor(token: string, hash?: string): Promise<Extract<Credential, { kind: 'oat' }>>;
  customerFor(token: string): Promise<OrganizationCredential>;
  grants: DashboardGrants;
}

/** A user JWT's credential; the user's row is made (or an invitation's claimed) on its first request. */
function userLookup({ orm, verifyUserJwt }: AuthDeps) {
  const userIds = new Map<string, string>();
  return async function userFor(token: string): Promise<Credential> {
    const verified = await verifyUserJwt(token);
    if (!verified) throw unauthorized('Invalid token', 'The bearer token is not a valid user JWT');
    let userId = userIds.get(verified.subject);
    if (!userId) {
      // A person added to an organization by email before first signing in was given a placeholder
      // row (`invited|<email>`); their first JWT claims it, so they keep those memberships.
      userId = await signedInUserId(orm.em.fork(), verified.subject, verified.email);
      if (userIds.size > 10_000) userIds.clear();
      userIds.set(verified.subject, userId);
    }
    return { kind: 'user', userId, subject: verified.subject, email: verified.email };
  };
}

/** An API key of this deployment's environment; a revoked or deleted one is invalid. */
function apiKeyLookup({ orm, cache, deploymentEnv }: AuthDeps) {
  return async function apiKeyFor(token: string, known?: string): Promise<Extract<Credential, { kind: 'api_key' }>> {
    const ownPrefix = deploymentEnv === 'live' ? TOKEN_PREFIX.apiKeyLive : TOKEN_PREFIX.apiKeyTest;
    // A key of the other environment is as invalid here as a malformed one.
    if (!isWellFormed(token, ownPrefix)) throw unauthorized(API_KEY_MESSAGES.invalid);
    const hash = known ?? hashSecret(token);
    const cached = cache.get(hash);
    if (cached?.kind === 'api_key') return cached;
    const mark = cache.mark();
    const row = await apiKeyByHash(orm.em, hash);
    if (!row || row.revokedAt || row.deletedAt) throw unauthorized(API_KEY_MESSAGES.invalid);
    const credential = {
      kind: 'api_key' as const,
      id: row.id,
      organizationId: row.organizationId,
      scopes: row.scopes,
      expiresAt: row.expiresAt,
    };
    cache.set(hash, credential, mark);
    return credential;
  };
}

/** An Organization Access Token; a revoked one is invalid. */
function oatLookup({ orm, cache }: AuthDeps) {
  return async function oatFor(token: string, known?: string): Promise<Extract<Credential, { kind: 'oat' }>> {
    if (!isWellFormed(token, TOKEN_PREFIX.oat)) throw unauthorized('Invalid access token');
    const hash = known ?? hashSecret(token);
    const cached = cache.get(hash);
    if (cached?.kind === 'oat') return cached;
    const mark = cache.mark();
    const row = await accessTokenByHash(orm.em, hash);
    if (!row || row.revokedAt) throw unauthorized('Invalid access token');
    const credential = {
      kind: 'oat' as const,
      id: row.id,
      organizationId: row.organizationId,
      scopes: row.scopes,
      expiresAt: row.expiresAt,
    };
    cache.set(hash, credential, mark);
    return credential;
  };
}

/** A Customer Portal session of a customer that is not deleted. */
function customerLookup({ orm, cache }: AuthDeps) {
  return async function customerFor(token: string): Promise<OrganizationCredential> {
    if (!isWellFormed(token, TOKEN_PREFIX.customerSession)) throw unauthorized('Invalid customer session token');
    const hash = hashSecret(token);
    const cached = cache.get(hash);
    if (cached?.kind === 'customer') return cached;
    const mark = cache.mark();
    const row = await customerSessionByHash(orm.em, hash);
    if (!row) throw unauthorized('Invalid customer session token');
    const credential: OrganizationCredential = {
      kind: 'customer',
      id: row.id,
      organizationId: row.organizationId,
      customerId: row.customerId,
      expiresAt: row.expiresAt,
    };
    cache.set(hash, credential, mark);
    return credential;
  };
}

type CustomerCredential = Extract<Credential, { kind: 'customer' }>;

/** A customer session token's credential while the session lasts; a 401 otherwise. */
async function customerSessionFor(lookups: CredentialLookups, token: string): Promise<CustomerCredential> {
  const credential = await lookups.customerFor(token);
  if (credential.kind !== 'customer') throw unauthorized('Invalid customer session token');
  if (credential.expiresAt.getTime() <= Date.now()) throw unauthorized('Customer session expired');
  return credential;
}

/**
 * The request's credential, if the route's rule accepts it: the API key of the X-Service-Api-Key
 * header (or a bearer that looks like one), else the bearer token by its prefix, else a user JWT.
 */
async function authorize(
  lookups: CredentialLookups,
  cache: CredentialCache,
  request: FastifyRequest,
  rule: AuthRule,
): Promise<Credential> {
  const { userFor, apiKeyFor, oatFor } = lookups;
  const headerKey = request.headers['x-service-api-key'];
  const authorization = request.headers.authorization;
  // The scheme is case-insensitive (RFC 9110); the token is taken as sent, so stray spaces fail its format check.
  const bearer =
    authorization !== undefined && /^bearer /i.test(authorization) ? authorization.slice('Bearer '.length) : undefined;

  const accepted = acceptedCredentials(rule, request.method);
  const isApiKey = headerKey !== undefined || (bearer !== undefined && /^\s*svc_(live|test)_/.test(bearer));
  if (isApiKey) {
    const key = typeof headerKey === 'string' ? headerKey : (bearer ?? '');
    const credential = await apiKeyFor(key, presentedSecretHash(request, key));
    if (credential.expiresAt && credential.expiresAt.getTime() <= Date.now())
      throw unauthorized(API_KEY_MESSAGES.expired);
    if (!rule.apiKey) throw forbidden(API_KEY_MESSAGES.scope, accepted);
    const needed = requiredApiKeyScope(request.method, rule.apiKey);
    if (!apiKeyAllows(credential.scopes, needed)) {
      throw forbidden(API_KEY_MESSAGES.scope, accepted);
    }
    cache.recordUse('api_keys', credential.id);
    return credential;
  }

  if (bearer === undefined) {
    if (authorization !== undefined)
      throw unauthorized('Invalid Authorization header', 'Expected: Authorization: Bearer <token>');
    // The spec's message names X-Service-Api-Key where a dashboard key (read/write) would do; where only
    // an admin key would, the access token is what a caller has. The detail lists every credential taken.
    const keyWouldDo = rule.apiKey !== undefined && requiredApiKeyScope(request.method, rule.apiKey) !== 'admin';
    throw unauthorized(keyWouldDo ? API_KEY_MESSAGES.missing : 'Missing Authorization header', accepted);
  }

  if (bearer.startsWith(TOKEN_PREFIX.oat)) {
    const credential = await oatFor(bearer, presentedSecretHash(request, bearer));
    if (credential.expiresAt && credential.expiresAt.getTime() <= Date.now())
      throw unauthorized('Access token expired');
    if (!rule.oat) throw forbidden('Organization access tokens are not accepted here', accepted);
    if (!oatAllows(credential.scopes, rule.oat)) {
      throw forbidden('Access token lacks required scope', accepted);
    }
    cache.recordUse('organization_access_tokens', credential.id);
    return credential;
  }

  if (bearer.startsWith(TOKEN_PREFIX.customerSession)) {
    const credential = await customerSessionFor(lookups, bearer);
    if (!rule.customer) throw forbidden('Customer session tokens are not accepted here', accepted);
    return credential;
  }

  if (bearer.startsWith(GRANT_PREFIX)) {
    // A dashboard page's in-process call (api/auth/dashboard-grants.ts): the member holds every scope
    // of its organization's resources; the user-only routes (credentials, members) take the user's JWT.
    const credential = lookups.grants.credentialOf(bearer);
    if (!credential) throw unauthorized('Invalid token');
    if (!rule.oat && !rule.apiKey) throw forbidden('Dashboard grants are not accepted here', accepted);
    return credential;
  }

  const credential = await userFor(bearer);
  if (!rule.user) throw forbidden('User tokens are not accepted here', accepted);
  return credential;
}

/** The organization-bound credential of a request; routes that accept only such credentials use it. */
export function organizationCredential(request: FastifyRequest): OrganizationCredential {
  const credential = request.credential;
  if (!credential || credential.kind === 'user')
    throw new ApiError(500, 'internal_error', 'Route is missing its auth rule');
  return credential;
}

export function userCredential(request: FastifyRequest): Extract<Credential, { kind: 'user' }> {
  const credential = request.credential;
  if (!credential || credential.kind !== 'user')
    throw new ApiError(500, 'internal_error', 'Route is missing its auth rule');
  return credential;
}

/** The customer session of a request: the Customer Portal's routes accept nothing else. */
export function customerCredential(request: FastifyRequest): CustomerCredential {
  const credential = request.credential;
  if (!credential || credential.kind !== 'customer')
    throw new ApiError(500, 'internal_error', 'Route is missing its auth rule');
  return credential;
}
