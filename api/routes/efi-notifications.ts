import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SYSTEM_ACTOR } from '../../contracts/actor.ts';
import { EfiGateway } from '../../gateway/efi-adapter.ts';
import {
  callbacksOfEfiNotice,
  chargeNoticeToken,
  InvalidEfiNoticeError,
  verifyEfiNotice,
} from '../../gateway/efi-notifications.ts';
import type { GatewayCallback } from '../../gateway/port.ts';
import { serviceUnavailable, unauthorized } from '../../use-cases/errors.ts';
import { efiNotificationBody, efiNotificationQuery, efiNotificationResponse } from '../schemas/efi-notifications.ts';
import { signalMandateOwner } from '../mandate-notices.ts';
import { deliverGatewayPayment } from '../transaction-notices.ts';
import { noticeResponses, servedOnlyWith } from '../notice-routes.ts';
import type { RouteDeps } from '../route-deps.ts';

/**
 * Efí's notices: `POST /api/v1/gateway/efi/notifications` (decision 0097). Served only with GATEWAY=efi
 * and EFI_WEBHOOK_HMAC; otherwise it answers as an unknown route does (404). The `hmac` query parameter
 * is checked first (in constant time); the notice then becomes callbacks (gateway/efi-notifications.ts),
 * each object read back from Efí, never believed from the body: a payment goes to its owner as Mercado
 * Pago's do (decision 0071); a mandate's or a mandate charge's subscription is signalled, and its
 * workflow reads them back from Efí.
 */
const DESCRIPTION =
  'Served when the gateway is Efí and EFI_WEBHOOK_HMAC is set (otherwise 404). Authenticated by the `hmac` ' +
  'query parameter registered with the webhook URL (Efí’s webhooks without mTLS). Takes the BCB’s pix, rec ' +
  'and cobr notices and the charges API’s boleto notices (`?kind=charge`, `notification=<token>`); every ' +
  'object named is read back from Efí. 503 when Efí or our services cannot be reached (Efí retries).';

export const efiNotificationRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config } = deps;
  const secret = config.gateway === 'efi' ? (config.EFI_WEBHOOK_HMAC ?? null) : null;
  // The charges API posts its token form-encoded; only these routes read that.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, text, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(text))));
  });

  app.post(
    '/efi/notifications',
    {
      schema: {
        tags: ['gateway'],
        summary: 'Receive a notice from Efí',
        description: DESCRIPTION,
        querystring: efiNotificationQuery,
        body: efiNotificationBody,
        response: noticeResponses(efiNotificationResponse),
      },
      onRequest: servedOnlyWith(secret),
      preValidation: async (request) => {
        try {
          verifyEfiNotice((request.query as Record<string, unknown> | undefined)?.hmac, secret!);
        } catch (err) {
          if (!(err instanceof InvalidEfiNoticeError)) throw err;
          request.log.info({ reason: err.message }, 'Efí notice refused');
          throw unauthorized('Invalid Efí notice');
        }
        request.identifyActor?.(SYSTEM_ACTOR);
      },
    },
    async (request) => {
      const callbacks = await callbacksOf(deps, request.query.kind, request.body, request.log);
      for (const callback of callbacks) await deliver(deps, callback, request.log.child({ efiNotice: callback.id }));
      return { received: true as const };
    },
  );
};

async function callbacksOf(deps: RouteDeps, kind: 'charge' | undefined, body: unknown, log: FastifyBaseLogger) {
  if (kind !== 'charge') return callbacksOfEfiNotice(body, new Date());
  const token = chargeNoticeToken(body);
  if (!token || !(deps.gateway instanceof EfiGateway)) return [];
  try {
    return await deps.gateway.chargeNoticeCallbacks(token);
  } catch (err) {
    log.warn({ err }, 'could not read an Efí charges notice');
    throw serviceUnavailable('temporarily_unavailable', 'Notice not processed; retry later');
  }
}

async function deliver(deps: RouteDeps, callback: GatewayCallback, log: FastifyBaseLogger): Promise<void> {
  if (callback.type === 'transaction.updated' && callback.transactionId) {
    return deliverGatewayPayment(deps, callback.transactionId, log, 'Efí');
  }
  await signalMandateOwner(deps, callback, log);
}
