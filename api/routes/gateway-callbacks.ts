import { SYSTEM_ACTOR } from '../../contracts/actor.ts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callbackHandled, recordCallback } from '../../db/checkout/callbacks.ts';
import { CALLBACK_SIGNATURE_HEADER, verifyCallbackSignature } from '../../gateway/callback-signature.ts';
import { recordChargebackNotice } from '../chargeback-notices.ts';
import { signalInvoiceNotice } from '../invoice-notices.ts';
import { replaceKeptCardOf } from '../kept-card-notices.ts';
import { signalMandateOwner } from '../mandate-notices.ts';
import { signalRecurrenceInvoice } from '../recurrence-notices.ts';
import { deliverPaymentNotice, readGatewayTransaction } from '../transaction-notices.ts';
import { badRequest, unauthorized } from '../../use-cases/errors.ts';
import { errorBody } from '../../use-cases/schemas/common.ts';
import { gatewayCallbackBody, gatewayCallbackResponse } from '../schemas/checkout-confirm.ts';
import type { RouteDeps } from '../route-deps.ts';
import { bcbWebhookRoutes } from './bcb-webhooks.ts';

/**
 * The gateway's notifications. The signature covers the raw body, so this module keeps its own JSON
 * parser (scoped to these routes) that remembers the text it parsed.
 */
export const gatewayCallbackRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const rawBodies = new WeakMap<FastifyRequest, string>();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    const raw = typeof text === 'string' ? text : text.toString('utf8');
    rawBodies.set(request, raw);
    try {
      done(null, JSON.parse(raw));
    } catch {
      done(badRequest('Request body is not valid JSON'), undefined);
    }
  });

  // Checked before the body is validated: an unsigned request learns nothing about the shape.
  const preValidation = async (request: FastifyRequest) => {
    const header = request.headers[CALLBACK_SIGNATURE_HEADER];
    const raw = rawBodies.get(request) ?? '';
    const signed = verifyCallbackSignature(
      deps.config.gatewayCallbackSecret,
      Array.isArray(header) ? header[0] : header,
      raw,
      new Date(),
    );
    if (!signed) throw unauthorized('Invalid gateway signature');
    // The gateway's word, not a person's: what it leads to is the system's doing.
    request.identifyActor?.(SYSTEM_ACTOR);
  };
  app.post(
    '/callbacks',
    {
      schema: {
        tags: ['gateway'],
        summary: 'Receive a signed payment notification from the gateway',
        description: `Authenticated by the ${CALLBACK_SIGNATURE_HEADER} header (HMAC-SHA256 of "<t>.<raw body>").`,
        body: gatewayCallbackBody,
        response: { 200: gatewayCallbackResponse, 400: errorBody, 401: errorBody, 429: errorBody, 503: errorBody },
      },
      preValidation,
    },
    async (request) => {
      const notice = request.body;
      const em = deps.orm.em.fork();
      if (await callbackHandled(em, notice.id)) return { received: true as const, duplicate: true };

      if (notice.type === 'transaction.updated' && notice.transactionId) {
        const { transactionId, status } = notice;
        const log = request.log.child({ callback: notice.id });
        // Its owner learns of it (decision 0071): a checkout, an invoice, a renewal or a direct transaction.
        await deliverPaymentNotice(
          deps,
          { transactionId, status },
          () => readGatewayTransaction(deps, transactionId, log),
          log,
        );
      }
      // An extra charge of ours (looked up here), else a cycle of a gateway subscription's recurrence.
      if (notice.type === 'invoice.updated' && !(await signalInvoiceNotice(deps, notice, request.log))) {
        if (notice.invoiceId) await signalRecurrenceInvoice(deps, notice.invoiceId);
      }
      // A chargeback's new state (read back from the gateway) or a kept card replaced (decisions 0072, 0079).
      if (notice.type === 'chargeback.updated' && notice.chargebackId) {
        await recordChargebackNotice(deps, notice.chargebackId, request.log.child({ callback: notice.id }));
      }
      if (notice.type === 'card.updated' && notice.cardId && notice.replacedBy) {
        await replaceKeptCardOf(deps, { replaced: notice.cardId, by: notice.replacedBy }, request.log);
      }
      // A Pix Automático mandate or cycle charge moved (decision 0096): its subscription's workflow reads it back.
      if (notice.type === 'mandate.updated' || notice.type === 'mandate_charge.updated') {
        await signalMandateOwner(deps, notice, request.log.child({ callback: notice.id }));
      }
      // Recorded after it was handled, so a failed attempt is not mistaken for a handled one.
      await recordCallback(em, notice);
      return { received: true as const, duplicate: false };
    },
  );
  // The BCB's webhooks of Pix Automático, checked by the same signature (decision 0103).
  bcbWebhookRoutes(app, deps, preValidation);
};
