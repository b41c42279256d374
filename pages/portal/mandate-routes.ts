import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { portalMandateStatus, revokePortalMandate } from '../../api/portal-mandates.ts';
import type { RouteApp, RouteDeps } from '../../api/route-deps.ts';
import { requestSubscriptionMandate } from '../../api/subscription-mandate-requests.ts';
import { DEFAULT_MANDATE_ANSWER_DAYS } from '../../domain/mandate-requests.ts';
import { ApiError } from '../../use-cases/errors.ts';
import { subscriptionData, type PortalCustomerScope } from '../../use-cases/portal-reads.ts';
import type { Locale } from '../locale.ts';
import type { RequestEm } from '../request-em.ts';
import { messagesFor } from './messages.ts';
import { PORTAL, portalPaths } from './paths.ts';
import { refusalText } from './refusals.ts';

const subscriptionParams = z.object({ id: z.string().max(64) });
const csrfForm = z.object({ csrf: z.string().max(200).optional() });

interface MandateVisit {
  locale: Locale;
  scope: PortalCustomerScope;
  em: RequestEm;
}

/** What these routes borrow from the portal's (pages/portal/routes.ts): the session, and the subscription's page. */
export interface PortalPageKit<V extends MandateVisit> {
  visitOf(app: RouteApp, deps: RouteDeps, request: FastifyRequest): Promise<V | null>;
  postVisit(
    app: RouteApp,
    deps: RouteDeps,
    request: FastifyRequest<{ Body: { csrf?: string } | undefined }>,
    reply: FastifyReply,
  ): Promise<V | null>;
  sendSubscriptionPage(
    reply: FastifyReply,
    deps: RouteDeps,
    visit: V,
    id: string,
    status: number,
    notice: { kind: 'status' | 'alert'; title: string; detail?: string | null } | null,
  ): Promise<unknown>;
}

/**
 * A subscription's Pix Automático in the portal (decisions 0096, 0101): "Ativar Pix Automático" asks for a
 * journey 2 mandate through the merchant API's own path (api/subscription-mandate-requests.ts); the
 * page's script polls the mandate's status while its QR code waits; the revocation (or, for a mandate
 * still waiting, its withdrawal) is posted behind its confirmation page. A refusal is the subscription's
 * page with the refusal in the customer's words, under its status code.
 */
export function portalMandateRoutes<V extends MandateVisit>(app: RouteApp, deps: RouteDeps, kit: PortalPageKit<V>) {
  const refused = (reply: FastifyReply, visit: V, id: string, err: unknown) => {
    if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
    const t = messagesFor(visit.locale);
    const notice = { kind: 'alert' as const, title: t.forbiddenTitle, detail: refusalText(t, err) };
    return kit.sendSubscriptionPage(reply, deps, visit, id, err.statusCode, notice);
  };

  app.post(
    `${PORTAL}/subscriptions/:id/mandate`,
    { schema: { hide: true, params: subscriptionParams, body: csrfForm } },
    async (request, reply) => {
      const visit = await kit.postVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      try {
        const ask = { journey: 'qr_code' as const, expiresInDays: DEFAULT_MANDATE_ANSWER_DAYS };
        await requestSubscriptionMandate(deps, visit.scope, id, ask);
      } catch (err) {
        return refused(reply, visit, id, err);
      }
      return reply.redirect(`${portalPaths.subscription(id)}?done=mandate_requested`, 303);
    },
  );

  // What the page's script polls while the QR code waits: the subscription's mandate's status, nothing more.
  app.get(
    `${PORTAL}/subscriptions/:id/mandate/status`,
    { schema: { hide: true, params: subscriptionParams } },
    async (request, reply) => {
      const visit = await kit.visitOf(app, deps, request);
      if (!visit) return reply.status(401).header('cache-control', 'no-store').send({ status: null });
      const view = await subscriptionData(visit.em, visit.scope, request.params.id);
      if (!view) return reply.status(404).header('cache-control', 'no-store').send({ status: null });
      const status = await portalMandateStatus(visit.em, view.subscription.id);
      return reply.header('cache-control', 'no-store').send({ status });
    },
  );

  // The authorization revoked through the subscription's workflow; a waiting one withdrawn through its own.
  app.post(
    `${PORTAL}/subscriptions/:id/mandate/revoke`,
    { schema: { hide: true, params: subscriptionParams, body: csrfForm } },
    async (request, reply) => {
      const visit = await kit.postVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const view = await subscriptionData(visit.em, visit.scope, id);
      const waiting = view?.subscription.recurrenceBilling === 'manual';
      try {
        await revokePortalMandate(deps, visit.scope, id);
      } catch (err) {
        return refused(reply, visit, id, err);
      }
      const done = waiting ? 'mandate_withdrawn' : 'mandate_revoked';
      return reply.redirect(`${portalPaths.subscription(id)}?done=${done}`, 303);
    },
  );
}
