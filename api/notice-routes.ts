import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../use-cases/schemas/common.ts';

/** What the gateways' notice routes share (Mercado Pago's, Efí's): their answers and when they are served. */

/**
 * A notice route's answers: its acknowledgement, a refused notice (400, 401), not served (404), too many
 * (429), or our outage (503), which the gateway retries.
 */
export const noticeResponses = <Ok>(ok: Ok) => ({
  200: ok,
  400: errorBody,
  401: errorBody,
  404: errorBody,
  429: errorBody,
  503: errorBody,
});

/**
 * The route's onRequest hook: without its gateway's secret (another gateway, or none configured) it
 * answers as any unknown route does (404), before the body is read; it stays registered so that the
 * API's document is the same in every deployment.
 */
export const servedOnlyWith =
  (secret: string | null) =>
  async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (secret) return;
    reply.callNotFound();
    return reply;
  };
