import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RouteDeps } from '../app.ts';

const probe = z.object({ status: z.string(), checks: z.record(z.string(), z.string()).optional() });

/** Liveness says the process answers; readiness says it can do work (PostgreSQL and Temporal reachable). */
export const healthRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const pending = new Set<Promise<string>>();
  // The Temporal client retries on a timer; closing its channel under a live retry would crash the process.
  app.addHook('onClose', async () => {
    await Promise.allSettled(pending);
  });

  app.get('/healthz', { schema: { tags: ['health'], response: { 200: probe } } }, async () => ({ status: 'ok' }));

  app.get(
    '/readyz',
    { schema: { tags: ['health'], response: { 200: probe, 503: probe } } },
    async (_request, reply) => {
      const [database, temporal] = await Promise.all([
        check(pending, () => deps.orm.em.getConnection().execute('select 1')),
        check(pending, () =>
          // A deadline is what ends the client's own retries: DEADLINE_EXCEEDED is final.
          deps.temporal.connection.withDeadline(Date.now() + 2000, () =>
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
