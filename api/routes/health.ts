import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pingDatabase } from '../../db/probe.ts';
import type { RouteDeps } from '../route-deps.ts';

const apiIndex = z.object({ name: z.string(), version: z.string(), docs_url: z.string(), openapi_url: z.string() });
const probe = z.object({ status: z.string(), checks: z.record(z.string(), z.string()).optional() });

/** How long each readiness probe may take: a dependency slower than this is not ready. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * Liveness says the process answers (it stays 200 while a dependency is down: restarting the process
 * would not bring PostgreSQL or Temporal back). Readiness says it can do work, dependency by
 * dependency: `checks.database` and `checks.temporal` are `ok` or `unavailable: <reason>`.
 */
export const healthRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const pending = new Set<Promise<string>>();
  // The Temporal client retries on a timer; closing its channel under a live retry would crash the process.
  app.addHook('onClose', async () => {
    await Promise.allSettled(pending);
  });

  // `npm start` prints `/api/v1/` as the API's address: it answers where the docs are, not a 404.
  app.get(
    '/api/v1',
    {
      schema: {
        tags: ['health'],
        operationId: 'getApiIndex',
        summary: 'API index: where the documentation is',
        response: { 200: apiIndex },
      },
    },
    async () => {
      const base = deps.config.publicBaseUrl;
      return { name: 'billing-api', version: 'v1', docs_url: `${base}/docs`, openapi_url: `${base}/openapi.json` };
    },
  );

  app.get(
    '/healthz',
    { schema: { tags: ['health'], summary: 'Liveness: the process answers', response: { 200: probe } } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness: PostgreSQL and Temporal are reachable',
        response: { 200: probe, 503: probe },
      },
    },
    async (_request, reply) => {
      const [database, temporal] = await Promise.all([
        check(pending, () => withTimeout(pingDatabase(deps.orm), PROBE_TIMEOUT_MS)),
        check(pending, () =>
          // A deadline is what ends the client's own retries: DEADLINE_EXCEEDED is final.
          deps.temporal.connection.withDeadline(Date.now() + PROBE_TIMEOUT_MS, () =>
            deps.temporal.connection.workflowService.getSystemInfo({}),
          ),
        ),
      ]);
      const ready = database === 'ok' && temporal === 'ok';
      return reply
        .status(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'unavailable', checks: { database, temporal } });
    },
  );
};

function check(pending: Set<Promise<string>>, probe: () => Promise<unknown>): Promise<string> {
  const result = probe().then(
    () => 'ok',
    (err: unknown) => `unavailable: ${err instanceof Error ? err.message : String(err)}`,
  );
  pending.add(result);
  void result.finally(() => pending.delete(result));
  return result;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
