import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { confirmableCheckoutOf, confirmCheckout } from '../checkout-confirmation.ts';
import { isClientSecret } from '../checkout-public.ts';
import type { RouteDeps } from '../route-deps.ts';
import {
  confirmSdkBody,
  confirmSdkParams,
  confirmSdkResponse,
  paymentDeclinedBody,
} from '../schemas/checkout-confirm.ts';
import { notFound } from '../../use-cases/errors.ts';
import { buyerPayment, chargedPayment } from '../../domain/installments.ts';
import { errorBody } from '../../use-cases/schemas/common.ts';
import { CONFIRMATION_REFUSAL_CODES } from '../../domain/checkout-confirmation.ts';

const REFUSALS = Object.entries(CONFIRMATION_REFUSAL_CODES)
  .map(([code, rule]) => `\`${code}\` (${rule})`)
  .join('; ');

export const checkoutConfirmRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.post(
    '/client/:client_secret/confirm-sdk',
    {
      schema: {
        tags: ['checkouts'],
        summary: 'Confirm a checkout with card, pix or boleto (public: the client_secret is the credential)',
        description:
          'Card data is tokenized at the gateway by the server and never stored. A declined card answers 422 ' +
          '(code payment_declined, with decline_reason) and leaves the checkout open for another try. ' +
          'A checkout waiting on its pix or boleto takes a card instead (payment_method credit_card): the pending ' +
          'charge is cancelled at the gateway first, and a pix or boleto a bank pays anyway is refunded; had it been ' +
          'paid before the cancellation, that payment is the sale and the card answers 409. ' +
          'A card the gateway holds for review (Mercado Pago: in_process) answers 200 with the checkout confirmed and ' +
          'gateway_payment_data.status pending, its review.until the end of the wait: approved, it is the sale; refused, the ' +
          'checkout opens again with its decline_reason; undecided at review.until, it is cancelled at the gateway and the ' +
          'checkout opens again (decline_reason review_expired). Another try meanwhile (card, pix or boleto) cancels it first ' +
          '(approved meanwhile: that is the sale, and the try answers 409). ' +
          'Any other confirmation of a checkout that is not open, or of one already being confirmed, answers 409. A buyer who already has a ' +
          "live subscription, where the organization's subscription_settings.allow_multiple_subscriptions is " +
          'false, answers 422 `subscription_exists` for a recurring price, with nothing charged. ' +
          `What the buyer has not given yet (and neither the checkout nor its customer has), or sent invalid, answers 422: ${REFUSALS}.`,
        params: confirmSdkParams,
        body: confirmSdkBody,
        response: {
          200: confirmSdkResponse,
          400: errorBody,
          401: errorBody,
          404: errorBody,
          409: errorBody,
          422: paymentDeclinedBody,
          429: errorBody,
          503: errorBody,
        },
      },
    },
    async (request, reply) => {
      const secret = request.params.client_secret;
      if (!isClientSecret(secret)) throw notFound('Checkout');
      const checkout = await confirmableCheckoutOf(deps.orm.em.fork(), { clientSecret: secret });
      // request.ip honours the configured trusted proxy (app.ts `trustProxy`): the buyer's address.
      const device = { ip: request.ip, sessionId: request.body.device_session_id ?? null };
      const result = await confirmCheckout(deps, checkout, request.body, device);
      if (result.outcome === 'declined') {
        const reason = result.checkout.decline_reason ?? 'card_declined';
        return reply
          .status(422)
          .send({ error: 'Payment declined', code: 'payment_declined', detail: reason, decline_reason: reason });
      }
      // `amount` is the price (the spec's); beside it, what the buyer pays with installment interest:
      // what the gateway charged when it answered with the payment (its interest, not our estimate).
      const charged = result.payment;
      const installments = result.checkout.gateway_payment_data?.installments ?? 1;
      const paid = charged
        ? chargedPayment(charged.amount, charged.installments)
        : buyerPayment(result.checkout.amount, installments, checkout.noFeesInstallments);
      return reply.status(200).send({ ...result.checkout, ...paid });
    },
  );
};
