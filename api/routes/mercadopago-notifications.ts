import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SYSTEM_ACTOR } from '../../contracts/actor.ts';
import {
  chargebackOfNotification,
  InvalidNotificationError,
  isIpnNotice,
  verifyPaymentNotification,
} from '../../gateway/mercadopago-notifications.ts';
import { recordChargebackNotice } from '../chargeback-notices.ts';
import { unauthorized } from '../../use-cases/errors.ts';
import {
  mercadoPagoNotificationBody,
  mercadoPagoNotificationHeaders,
  mercadoPagoNotificationQuery,
  mercadoPagoNotificationResponse,
} from '../schemas/mercadopago-notifications.ts';
import { cardReplacementOf } from '../../gateway/mercadopago-card-updates.ts';
import { replaceKeptCardOf } from '../kept-card-notices.ts';
import { deliverGatewayPayment } from '../transaction-notices.ts';
import { noticeResponses, servedOnlyWith } from '../notice-routes.ts';
import type { RouteDeps } from '../route-deps.ts';

/**
 * Mercado Pago's payment notifications (its webhooks): `POST /api/v1/gateway/mercadopago/notifications`.
 * Served only with GATEWAY=mercadopago and MERCADOPAGO_WEBHOOK_SECRET; otherwise it answers as an
 * unknown route does (404), yet stays registered so that the document is the same in every deployment.
 *
 * A notice only says "payment N changed", so nothing in it is believed: once its signature holds, the
 * payment is read from Mercado Pago and its owner (a checkout, an extra-charge invoice, a renewal or a
 * direct transaction; decision 0071) learns the status Mercado Pago answered, through its workflow
 * while it runs, else through the payment-notice workflow. A replay therefore changes nothing, and the
 * signature's `ts` sets no age limit (its unit is documented two ways, and a retried notice may keep
 * it: decision 0066).
 * A payment it shows refunded starts the workflow that records a refund made in Mercado Pago's panel
 * (decision 0068); a Card Updater notice (`automatic-payments`, `card.updated`) starts the one that moves
 * the subscriptions charging the replaced kept card to its replacement (0071), and a `chargebacks`
 * notice the one that records the dispute (decision 0072): the route itself writes nothing.
 * Mercado Pago retries any other answer than 2xx: a payment it does not know, or that is none of ours,
 * is acknowledged (a forged id would otherwise be retried forever); so is an unsigned IPN
 * notice (`?topic=…&id=…`), which is never acted on; an outage is a 503.
 */
const NOTICE_ROUTE_DESCRIPTION =
  'Served when the gateway is Mercado Pago and MERCADOPAGO_WEBHOOK_SECRET is set (otherwise 404). ' +
  'Authenticated by the x-signature header: `ts=<timestamp>,v1=<hex>`, an HMAC-SHA256 with the webhook ' +
  'secret of `id:<data.id>;request-id:<x-request-id>;ts:<ts>;` (data.id from the query, else the body); ' +
  'it is checked before anything else, and `ts` (seconds or milliseconds) sets no age limit. ' +
  'An IPN notice (`?topic=…&id=…`, unsigned) is acknowledged and ignored. ' +
  'The payment is then read from Mercado Pago, never from the notice, and its owner (a checkout, an ' +
  'extra-charge invoice, a renewal or a direct transaction) is told, also after its workflow has ended. ' +
  'A Card Updater notice (`type=automatic-payments`, action `card.updated`) moves the subscriptions that ' +
  'charge the replaced kept card to the new one, once Mercado Pago answers the new card. ' +
  'A notice of the chargebacks topic (`type=chargebacks`) is read back from Mercado Pago ' +
  '(`GET /v1/chargebacks/<data.id>`) and recorded as a dispute of the sale by its workflow. ' +
  'A notice of another type, or about a payment that is none of ours, is acknowledged ' +
  'and ignored; 503 when Mercado Pago or our services cannot be reached (Mercado Pago retries).';

export const mercadoPagoNotificationRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config } = deps;
  const secret = config.gateway === 'mercadopago' ? (config.MERCADOPAGO_WEBHOOK_SECRET ?? null) : null;
  /** The payment a verified notice names; null for a notice of another type. */
  const verified = new WeakMap<FastifyRequest, string | null>();
  /** The chargeback a verified notice of the `chargebacks` topic names (decision 0072). */
  const chargebacks = new WeakMap<FastifyRequest, string>();

  app.post(
    '/mercadopago/notifications',
    {
      schema: {
        tags: ['gateway'],
        summary: 'Receive a payment notification from Mercado Pago',
        description: NOTICE_ROUTE_DESCRIPTION,
        querystring: mercadoPagoNotificationQuery,
        headers: mercadoPagoNotificationHeaders,
        body: mercadoPagoNotificationBody,
        response: noticeResponses(mercadoPagoNotificationResponse),
      },
      // Not served: as any unknown route, before the body is read.
      onRequest: servedOnlyWith(secret),
      // Checked before the request is validated: an unsigned request learns nothing about the shape.
      preValidation: async (request, reply) => {
        // Unsigned by design: acknowledged, so that it is not retried, and never acted on.
        if (isIpnNotice((request.query ?? {}) as Record<string, unknown>)) {
          request.log.info('Mercado Pago IPN notice acknowledged and ignored (webhooks only)');
          return reply.send({ received: true as const });
        }
        verified.set(request, verify(request, secret!));
        const chargeback = verified.get(request) === null ? chargebackOfNotification(noticeOf(request)) : null;
        if (chargeback) chargebacks.set(request, chargeback);
        // Mercado Pago's word, not a person's: what it leads to is the system's doing.
        request.identifyActor?.(SYSTEM_ACTOR);
      },
    },
    async (request) => {
      const chargeback = chargebacks.get(request);
      if (chargeback) {
        // Read from Mercado Pago and recorded by its workflow; the route writes nothing.
        const log = request.log.child({ mercadoPagoChargeback: chargeback });
        if (!(await recordChargebackNotice(deps, chargeback, log))) {
          log.warn('Mercado Pago notified a chargeback it does not know: ignored');
        }
        return { received: true as const };
      }
      const paymentId = verified.get(request);
      if (!paymentId) {
        // Card Updater replaced a kept card: its workflow checks it with Mercado Pago and moves the subscriptions.
        const replacement = cardReplacementOf(request.query.type ?? request.body.type, request.body);
        if (replacement) await replaceKeptCardOf(deps, replacement, request.log);
        return { received: true as const };
      }
      const log = request.log.child({ mercadoPagoPayment: paymentId });
      await deliverGatewayPayment(deps, paymentId, log, 'Mercado Pago');
      return { received: true as const };
    },
  );
};

/** The notice's data.id and type, from the query, else the body (not validated yet: read defensively). */
function noticeOf(request: FastifyRequest) {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.body ?? {}) as { type?: unknown; data?: { id?: unknown } | null };
  return { dataId: text(query['data.id']) ?? text(body.data?.id), type: text(query.type) ?? text(body.type) };
}

/** The payment a correctly signed notice names (null: another type); anything else is a 401. */
function verify(request: FastifyRequest, secret: string): string | null {
  try {
    return verifyPaymentNotification(
      {
        signature: request.headers['x-signature'],
        requestId: request.headers['x-request-id'],
        ...noticeOf(request),
      },
      secret,
    );
  } catch (err) {
    if (!(err instanceof InvalidNotificationError)) throw err;
    request.log.info({ reason: err.message }, 'Mercado Pago notification refused');
    throw unauthorized('Invalid Mercado Pago signature');
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
