import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { callbacksOfBcbWebhook } from '../../gateway/bcb-notices.ts';
import { CALLBACK_SIGNATURE_HEADER } from '../../gateway/callback-signature.ts';
import { errorBody } from '../../use-cases/schemas/common.ts';
import { signalMandateOwner } from '../mandate-notices.ts';
import type { RouteDeps } from '../route-deps.ts';
import { bcbCobRWebhookBody, bcbRecWebhookBody, bcbWebhookResponse } from '../schemas/bcb-webhooks.ts';

/**
 * The BCB's Pix Automático webhooks (decision 0103): the gateway registers `…/callbacks/bcb` with PUT
 * /webhookrec and /webhookcobr and posts `{ recs }` to `…/callbacks/bcb/rec`, `{ cobsr }` to
 * `…/callbacks/bcb/cobr`. The BCB's PSPs authenticate by mTLS; in the sandbox, the simulated gateway signs
 * them as its callbacks (the same signature check stands in for it). Each rec or cobr named goes to the
 * notice path of the gateway's own callbacks (api/mandate-notices.ts): its subscription (or mandate)
 * workflow reads it back through the gateway, so a repeated or reordered delivery ends in the same state.
 */
const DESCRIPTION =
  `Authenticated by the ${CALLBACK_SIGNATURE_HEADER} header (HMAC-SHA256 of "<t>.<raw body>"), the sandbox’s ` +
  'stand-in for the BCB’s mTLS. Every rec or cobr named is read back from the gateway, never taken from the ' +
  'body. 503 when our services cannot be reached (the gateway retries).';

export function bcbWebhookRoutes(
  parent: FastifyInstance,
  deps: RouteDeps,
  preValidation: (request: FastifyRequest) => Promise<void>,
): void {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const response = { 200: bcbWebhookResponse, 400: errorBody, 401: errorBody, 429: errorBody, 503: errorBody };
  const deliver = async (request: FastifyRequest, source: 'bcb') => {
    for (const callback of callbacksOfBcbWebhook(request.body, new Date(), source)) {
      await signalMandateOwner(deps, callback, request.log.child({ bcbWebhook: callback.id }));
    }
    return { received: true as const };
  };
  app.post(
    '/callbacks/bcb/rec',
    {
      schema: {
        tags: ['gateway'],
        summary: 'Receive the BCB’s webhook of Pix Automático recurrences (webhookrec)',
        description: DESCRIPTION,
        body: bcbRecWebhookBody,
        response,
      },
      preValidation,
    },
    (request) => deliver(request, 'bcb'),
  );
  app.post(
    '/callbacks/bcb/cobr',
    {
      schema: {
        tags: ['gateway'],
        summary: 'Receive the BCB’s webhook of Pix Automático recurring charges (webhookcobr)',
        description: DESCRIPTION,
        body: bcbCobRWebhookBody,
        response,
      },
      preValidation,
    },
    (request) => deliver(request, 'bcb'),
  );
}
