import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses, validationErrors } from '../../use-cases/schemas/common.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { createMandateBody, mandateSchema } from '../schemas/mandates.ts';
import { subscriptionParams } from '../schemas/subscriptions.ts';
import { requestSubscriptionMandate } from '../subscription-mandate-requests.ts';
import type { RouteDeps } from '../route-deps.ts';

const WRITE = { oat: ['subscriptions:write'], apiKey: 'subscriptions' } as const;

/**
 * POST /subscriptions/{id}/mandates (decision 0098): asks a manual subscription's payer for a Pix
 * Automático mandate, journey 1 (a request to their bank), 2 (a QR code) or 4 (the next renewal's pix QR code
 * also offers it, decision 0100). The mandate's own workflow
 * (`mandate:<id>`) creates it at the gateway and records it; the answer is its creation Update's, with
 * the QR code or the request and its expiry. Approved, the subscription bills its next period through it.
 */
export const subscriptionMandatesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.post(
    '/:id/mandates',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags: ['mandates'],
        summary: "Ask a subscription's payer for a Pix Automático mandate",
        description:
          'For an active or trialing subscription billed manually (`recurrence_billing: manual`), whose price is ' +
          'weekly, monthly, quarterly, semiannual or yearly, in BRL, whose customer has a name and a CPF or CNPJ, on ' +
          'a gateway with Pix Automático. Answers 201 with the mandate, `created`: journey 2 (`qr_code`) with its ' +
          "`qr_code` to show the payer; journey 1 (`request`) with the `request` pushed to the payer's bank and " +
          'when it expires; `with_renewal` (journey 4) for a subscription renewed by pix (no kept card): its next ' +
          "renewal checkout is opened (or the open one found) and its pix, once the buyer chooses pix, is the mandate's " +
          'QR code, which pays the renewal and offers the recurrence in one step (expires_in_days counts from the ' +
          "renewal's due date; a subscription renewed on its card answers 422 `payment_method_not_allowed`). " +
          'The payer answers in their bank’s app: approved (`mandate.approved`), the subscription ' +
          'bills its next period through the mandate (`recurrence_billing` becomes `pix_automatico` before that ' +
          'period, `subscription.updated`; when its charge can no longer be sent in time, from the period after); ' +
          'rejected or expired (`mandate.rejected`, `mandate.expired`), nothing changes. A QR code unanswered by ' +
          'expires_in_days is withdrawn (`mandate.cancelled`). A subscription with a mandate waiting or approved ' +
          'answers 409 `mandate_exists`; a rejected, expired or cancelled one may be replaced. A subscription not ' +
          'billed manually, not active or trialing, or canceling at period end answers 409 ' +
          '`subscription_not_eligible`. Journey 1 pushes the request to the payer’s bank account, `payer_account` ' +
          '(ISPB, agency, account): a gateway that cannot find the account itself answers 422 ' +
          '`payer_account_required` without it, and a malformed one is 422 `invalid_payer_account`. ' +
          'Scope: subscriptions:write.',
        params: subscriptionParams,
        body: createMandateBody,
        response: {
          201: mandateSchema,
          ...errorResponses,
          422: validationErrors({
            pix_automatico_not_allowed: 'the price is not weekly to yearly, or the subscription not in BRL',
            pix_automatico_unavailable: 'the gateway offers no Pix Automático',
            customer_name_required: 'the customer has no name (the mandate names its debtor)',
            customer_tax_id_required: 'the customer has no CPF or CNPJ',
            payer_account_required: "journey request on a gateway that needs the payer's account (Efí) without it",
            invalid_payer_account: 'payer_account is not an ISPB, agency and account, or was given for a QR code',
            gateway_refused: 'the gateway refused to create the mandate; nothing was created',
            payment_method_not_allowed: 'with_renewal for a subscription renewed on its kept card',
          }),
        },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const { journey, expires_in_days: expiresInDays, payer_account: payerAccount } = request.body;
      const mandate = await requestSubscriptionMandate(deps, { organizationId }, request.params.id, {
        journey,
        expiresInDays,
        payerAccount: payerAccount ?? null,
      });
      return reply.status(201).send(mandate as never);
    },
  );
};
