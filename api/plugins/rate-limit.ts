import { createHash } from 'node:crypto';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../../config/env.ts';
import type { Orm } from '../../db/orm.ts';
import { countRequests, sweepEndedWindows } from '../../db/rate-limit/counters.ts';
import { ApiError } from '../../use-cases/errors.ts';
import { presentedSecretHash } from '../auth/tokens.ts';
import { authRuleOf } from './openapi.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A public route: counted by client address, so that a made-up credential does not open a new count.
     * Set on every route without app.authenticate (registerRateLimit's onRoute hook).
     */
    rateLimitByAddress?: boolean;
    /**
     * A public route's visitor, where the request names one (a checkout's client secret, or the cookie
     * that holds it): counted per visitor instead of per address, so that buyers sharing one carrier
     * address (mobile networks do) do not share a count. Null: counted by address.
     */
    rateLimitVisitor?: (request: FastifyRequest) => string | null;
  }
}

/**
 * Probes answer the orchestrator, which must never be throttled into restarting a healthy process; the
 * pages' scripts and stylesheets are static files a browser keeps for a year, and a page view must not
 * spend its address's count on them.
 */
const EXEMPT_ROUTES = new Set(['/healthz', '/readyz', '/assets/:version/:name']);

/** What one request adds to its window: the count so far and the milliseconds left. */
type Tally = { current: number; ttl: number };
type Counter = (key: string, windowMs: number) => Promise<Tally>;

/**
 * Per-credential fixed windows (the spec: 100/min in the sandbox, 1000/min in production), counted
 * in PostgreSQL or Redis so that every API process shares one count. The limiter runs as a root
 * `onRequest` hook, before each route's own auth hook: a request with a bad credential is counted too.
 */
export async function registerRateLimit(app: FastifyInstance, deps: { config: Config; orm: Orm }): Promise<void> {
  const { config } = deps;
  let counter: Counter;
  if (config.RATE_LIMIT_STORE === 'redis') {
    const redis = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    app.addHook('onClose', async () => {
      await redis.quit();
    });
    counter = redisCounter(redis);
  } else {
    counter = postgresCounter(deps.orm);
    const sweeper = setInterval(
      () => void sweepPostgresCounters(deps.orm, app.log),
      Math.max(config.RATE_LIMIT_WINDOW_MS, 60_000),
    );
    sweeper.unref();
    app.addHook('onClose', async () => clearInterval(sweeper));
  }

  const windowSeconds = Math.round(config.RATE_LIMIT_WINDOW_MS / 1000);
  await app.register(rateLimit, {
    // Not `global`: the plugin would append its hook after each route's auth hook. We add it at the root.
    global: false,
    max: config.rateLimitMax,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    keyGenerator: credentialKey,
    allowList: (request) => EXEMPT_ROUTES.has(request.routeOptions.url ?? ''),
    store: counterStore(counter, app.log),
    // A counter store that is down must not take the API down with it: the request is let through (and logged).
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        'rate_limited',
        'Rate limit exceeded',
        `At most ${context.max} requests per ${windowSeconds} seconds per credential; retry in ${Math.ceil(context.ttl / 1000)} seconds`,
      ),
  });
  app.addHook('onRequest', app.rateLimit());
  // A route that takes no credential is public: counted by address whatever a caller sends as one.
  app.addHook('onRoute', (route) => {
    if (!authRuleOf(route)) route.config = { ...route.config, rateLimitByAddress: true };
  });
}

/**
 * The credential presented, hashed (the secret itself never becomes a key), or else the client's
 * address. It is not verified here: that would cost a lookup before the count.
 */
export function credentialKey(request: FastifyRequest): string {
  const config = request.routeOptions.config;
  if (config?.rateLimitByAddress) return config.rateLimitVisitor?.(request) ?? `ip:${request.ip}`;
  const apiKey = request.headers['x-service-api-key'];
  const authorization = request.headers.authorization;
  const secret =
    typeof apiKey === 'string' && apiKey !== ''
      ? apiKey
      : authorization?.startsWith('Bearer ')
        ? authorization.slice('Bearer '.length)
        : undefined;
  if (secret) return `cred:${presentedSecretHash(request, secret)}`;
  return `ip:${request.ip}`;
}

/**
 * A count per checkout (by its client secret, hashed), in a namespace of its own: `page` for the hosted
 * checkout's pages, `poll` for the status reads a pending pix's page makes, so polling spends no page load.
 * A made-up secret opens a count of its own; it reaches nothing but a not-found page.
 */
export function clientSecretCount(namespace: 'page' | 'poll', secret: string | undefined): string | null {
  if (!secret || !/^cs_[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  return `${namespace}:${createHash('sha256').update(secret).digest('hex')}`;
}

/** The checkout's client secret in the route's path, as the visitor of a page or a status read. */
export const byPathSecret =
  (namespace: 'page' | 'poll') =>
  (request: FastifyRequest): string | null =>
    clientSecretCount(namespace, (request.params as { client_secret?: string } | undefined)?.client_secret);

/** Adapts a counter to the plugin's store interface; failures are logged, then reported to the plugin. */
function counterStore(counter: Counter, log: FastifyBaseLogger): FastifyRateLimitStoreCtor {
  return class CounterStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: Tally) => void, timeWindow: number): void {
      counter(key, timeWindow).then(
        (tally) => callback(null, tally),
        (err: unknown) => {
          log.error({ err }, 'rate-limit counter unavailable; request let through');
          callback(err instanceof Error ? err : new Error(String(err)));
        },
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * Requests of one credential that arrive while its count is on the way to PostgreSQL wait and are
 * counted together by the next statement: one round trip per batch instead of per request. Still
 * exact: each request gets its own place in the shared count (count - n + 1 … count).
 */
export function postgresCounter(orm: Orm): Counter {
  type Waiter = { resolve: (tally: Tally) => void; reject: (err: unknown) => void };
  const queues = new Map<string, { inFlight: boolean; waiting: Waiter[] }>();

  async function flush(key: string, windowMs: number): Promise<void> {
    const queue = queues.get(key)!;
    const batch = queue.waiting;
    queue.waiting = [];
    queue.inFlight = true;
    try {
      // Prepared once per connection, so each statement sends only Bind/Execute.
      const { count, ttl } = (await countRequests(orm.em, key, batch.length, windowMs))!;
      batch.forEach((waiter, i) => waiter.resolve({ current: count - batch.length + 1 + i, ttl }));
    } catch (err) {
      for (const waiter of batch) waiter.reject(err);
    } finally {
      queue.inFlight = false;
      if (queue.waiting.length > 0) void flush(key, windowMs);
      else queues.delete(key);
    }
  }

  return (key, windowMs) =>
    new Promise<Tally>((resolve, reject) => {
      let queue = queues.get(key);
      if (!queue) queues.set(key, (queue = { inFlight: false, waiting: [] }));
      queue.waiting.push({ resolve, reject });
      if (!queue.inFlight) void flush(key, windowMs);
    });
}

/** Windows that ended long ago are dead weight (one row per credential or address ever seen). */
async function sweepPostgresCounters(orm: Orm, log: FastifyBaseLogger): Promise<void> {
  try {
    await sweepEndedWindows(orm.em.fork());
  } catch (err) {
    log.warn({ err }, 'rate-limit counter sweep failed');
  }
}

/**
 * One round trip (MULTI is pipelined): create the key with the window as its expiry unless it
 * exists, count, read what is left of the window. INCR keeps the expiry SET gave.
 */
export function redisCounter(redis: Redis): Counter {
  return async (key, windowMs) => {
    const k = `rate-limit:${key}`;
    const results = await redis.multi().set(k, 0, 'PX', windowMs, 'NX').incr(k).pttl(k).exec();
    if (!results) throw new Error('Redis transaction aborted');
    for (const [err] of results) if (err) throw err;
    const current = Number(results[1]![1]);
    const ttl = Number(results[2]![1]);
    return { current, ttl: ttl > 0 ? ttl : windowMs };
  };
}
