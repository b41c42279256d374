import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, preHandlerAsyncHookHandler } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { claimKey, completeClaim, keyRecord, releaseClaim, sweepExpiredKeys } from '../../db/idempotency/keys.ts';
import { ApiError } from '../../use-cases/errors.ts';
import type { AppDeps } from '../route-deps.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request claimed its Idempotency-Key: its response is stored (or the key released). */
    idempotencyClaim: IdempotencyClaim | null;
  }
  interface FastifyContextConfig {
    /**
     * The body is a stream the handler reads (an upload): preHandler cannot fingerprint it, so the
     * handler claims the key itself, once it knows the content, with `claimIdempotencyKey`.
     */
    idempotencyAfterBody?: boolean;
  }
  interface FastifyInstance {
    /**
     * For `idempotencyAfterBody` routes: claims the request's Idempotency-Key for `content` (what the
     * body carried). Undefined: no key, or claimed (go on); else the first response, for
     * `replayResponse`. Throws the 422 of a key used for other content and the 409 of one in progress.
     */
    claimIdempotencyKey(request: FastifyRequest, content: unknown): Promise<StoredResponse | undefined>;
  }
}

export interface IdempotencyClaim {
  scope: string;
  key: string;
  /** This claim of the key: only its holder stores a response or releases the key. */
  id: string;
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
const SWEEP_EVERY_MS = 60_000;
/** Printable ASCII only: the key is echoed in logs and compared byte for byte. */
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/**
 * Idempotency-Key on every POST (spec, general rule 5). The record lives in PostgreSQL, so it holds
 * across restarts and across API processes. The claim is taken in `preHandler`, after the route's
 * auth and validation: a request refused there (401, 403, 429, 400 from the schema) never reached
 * the operation and leaves no record, so fixing it and retrying with the same key just works.
 *
 * A claim is a lease of IDEMPOTENCY_LEASE_MS: a replay within it is a 409; once it has run out with
 * no response stored (the process that held it crashed), the key is free again, as a 5xx frees it.
 */
export function registerIdempotency(app: FastifyInstance, deps: AppDeps): void {
  const store = new IdempotencyStore(deps.orm, deps.config.IDEMPOTENCY_LEASE_MS);
  app.decorateRequest('idempotencyClaim', null);

  const claimBeforeHandler: preHandlerAsyncHookHandler = async (request, reply) => {
    if (request.method !== 'POST') return;
    const key = idempotencyKey(request);
    if (key === undefined || request.routeOptions.config.idempotencyAfterBody) return;
    const stored = await claimKey(request, key, requestFingerprint(request));
    if (stored) return replayResponse(reply, stored);
  };
  // On the POST routes only (first among their own hooks), so that reads pay nothing for it.
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('POST')) return;
    route.preHandler = [claimBeforeHandler, ...[route.preHandler ?? []].flat()];
    route.onSend = [...[route.onSend ?? []].flat(), storeResponse];
  });

  app.decorate('claimIdempotencyKey', async (request: FastifyRequest, content: unknown) => {
    const key = idempotencyKey(request);
    if (key === undefined) return undefined;
    return claimKey(request, key, requestFingerprint(request, content));
  });

  /** Undefined when claimed; the stored response when the key has one; throws for a mismatch or a claim in progress. */
  async function claimKey(
    request: FastifyRequest,
    key: string,
    fingerprint: string,
  ): Promise<StoredResponse | undefined> {
    const claim = { scope: idempotencyScope(request), key, id: randomUUID() };
    const outcome = await store.claim(claim, fingerprint);
    if (outcome.kind === 'claimed') {
      request.idempotencyClaim = claim;
      return;
    }
    if (outcome.kind === 'mismatch') {
      throw new ApiError(
        422,
        'idempotency_key_mismatch',
        'Idempotency-Key was used for a different request',
        'Use a new key for a new request',
      );
    }
    if (outcome.kind === 'running') {
      throw new ApiError(
        409,
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still in progress',
        'Retry once it has finished',
      );
    }
    return { status: outcome.status, body: outcome.body };
  }

  async function storeResponse(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    const body = storableBody(payload, reply.getHeader('content-type'));
    try {
      // A 5xx says nothing about the operation's outcome the client could rely on: the key is freed for a retry.
      if (reply.statusCode >= 500 || body === undefined) await store.release(claim);
      else await store.complete(claim, reply.statusCode, body);
    } catch (err) {
      request.log.error({ err }, 'could not record the idempotent response; releasing the key');
      await store.release(claim).catch(() => undefined);
    }
    return payload;
  }
}

/**
 * For the OpenAPI document: every POST operation lists the optional Idempotency-Key header.
 * Documentation only; the header is checked by the hook above, not by the route's schema.
 */
export function documentIdempotencyKey(transformed: { schema: FastifySchema; url: string }, method: string | string[]) {
  const methods = Array.isArray(method) ? method : [method];
  if (!methods.includes('POST')) return transformed;
  const headers = (transformed.schema.headers ?? { type: 'object', properties: {} }) as {
    properties?: Record<string, unknown>;
  };
  const header = {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    description:
      'Makes the request safe to retry: a repeat with the same key and request within 24 hours returns the first ' +
      'response (with Idempotent-Replayed: true) instead of running the operation again.',
  };
  return {
    ...transformed,
    schema: {
      ...transformed.schema,
      headers: { ...headers, properties: { ...headers.properties, [IDEMPOTENCY_HEADER]: header } },
    },
  };
}

/** Who the key belongs to: the organization of the credential, else the user, else the public route. */
export function idempotencyScope(request: FastifyRequest): string {
  const credential = request.credential;
  if (!credential) return `public:${request.routeOptions.url ?? request.url}`;
  switch (credential.kind) {
    case 'user':
      return `user:${credential.userId}`;
    // Two customers of one organization must never see each other's replies.
    case 'customer':
      return `customer:${credential.customerId}`;
    default:
      return `org:${credential.organizationId}`;
  }
}

/** The request's Idempotency-Key, if it sent one; a 400 for a malformed one. */
function idempotencyKey(request: FastifyRequest): string | undefined {
  const header = request.headers[IDEMPOTENCY_HEADER];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(', ') : header;
  if (!KEY_FORMAT.test(key)) {
    throw new ApiError(
      400,
      'invalid_idempotency_key',
      'Invalid Idempotency-Key header',
      'Use 1 to 255 printable ASCII characters, e.g. a UUID',
    );
  }
  return key;
}

/**
 * The request as the operation saw it (after validation): route, parameters, query and body, or, for
 * a streamed body, what the handler read of it.
 */
export function requestFingerprint(request: FastifyRequest, body: unknown = request.body): string {
  const seen = {
    method: request.method,
    route: request.routeOptions.url ?? request.url,
    params: request.params,
    query: request.query,
    body,
  };
  return createHash('sha256').update(canonicalJson(seen)).digest('hex');
}

/** JSON with object keys sorted at every depth, so key order never makes two requests differ. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Our POST responses are JSON or empty; anything else (a stream, a file) is not replayable. */
function storableBody(payload: unknown, contentType: unknown): string | null | undefined {
  if (payload === null || payload === undefined || payload === '') return null;
  if (!String(contentType ?? '').includes('json')) return undefined;
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined;
}

/** The response stored for an Idempotency-Key. */
export interface StoredResponse {
  status: number;
  body: string | null;
}

export function replayResponse(reply: FastifyReply, { status, body }: StoredResponse): FastifyReply {
  reply.status(status).header(REPLAYED_HEADER, 'true');
  if (body === null) return reply.send();
  return reply.header('content-type', 'application/json; charset=utf-8').send(body);
}

type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'mismatch' }
  | { kind: 'running' }
  | { kind: 'done'; status: number; body: string | null };

class IdempotencyStore {
  private readonly orm: Orm;
  private readonly leaseMs: number;
  private lastSweep = 0;

  constructor(orm: Orm, leaseMs: number) {
    this.orm = orm;
    this.leaseMs = leaseMs;
  }

  /**
   * Takes the key (a new key, one whose record expired, or one whose claim's lease ran out with no
   * response stored) in one statement; otherwise reads what the record says. A record released
   * between the two statements is simply claimed again.
   */
  async claim(claim: IdempotencyClaim, requestHash: string): Promise<ClaimOutcome> {
    const em = this.orm.em;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await claimKey(em, claim.scope, claim.key, requestHash, this.leaseMs, claim.id)) {
        this.sweepExpired();
        return { kind: 'claimed' };
      }
      const row = await keyRecord(em, claim.scope, claim.key);
      // Gone (released, expired) or its lease ran out since the insert: try to claim it again.
      if (!row || row.lapsed) continue;
      if (row.requestHash !== requestHash) return { kind: 'mismatch' };
      if (row.state === 'running') return { kind: 'running' };
      return { kind: 'done', status: row.responseStatus!, body: row.responseBody };
    }
    // Claimed and released by others three times over: the operation is being retried right now.
    return { kind: 'running' };
  }

  /** Stores the response, unless the claim was lost (its lease ran out and another request took the key). */
  async complete(claim: IdempotencyClaim, status: number, body: string | null): Promise<void> {
    await completeClaim(this.orm.em, claim.scope, claim.key, claim.id, status, body);
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    await releaseClaim(this.orm.em, claim.scope, claim.key, claim.id);
  }

  /** Expired records are ignored anyway; deleting them now and then keeps the table small. */
  private sweepExpired(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    sweepExpiredKeys(this.orm.em.fork()).catch(() => undefined);
  }
}
