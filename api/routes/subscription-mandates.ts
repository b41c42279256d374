import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import {
  MANDATE_EXISTS,
  mandateCreationUpdate,
  type MandateWorkflow,
  type MandateWorkflowInput,
} from '../../contracts/mandate.ts';
import { checkoutPriceTerms } from '../../db/catalog/checkout-reads.ts';
import { findCustomerByKey } from '../../db/customer/customers.ts';
import { liveMandateOfSubscription } from '../../db/mandate/mandates.ts';
import { findOwnSubscription } from '../../db/subscription/rows.ts';
import { GATEWAY_REFUSAL } from '../../domain/failures.ts';
import { mandateRequestRefusal, renewalAnswerBy, type MandateRequestJourney } from '../../domain/mandate-requests.ts';
import { offersPixAutomatico, offersRecurringBilling } from '../../gateway/capabilities.ts';
import { mandateWorkflowStart } from '../../temporal/workflow-starts.ts';
import { ApiError, notFound, unprocessable } from '../../use-cases/errors.ts';
import { errorResponses, isUuid, validationErrors } from '../../use-cases/schemas/common.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { createMandateBody, mandateSchema } from '../schemas/mandates.ts';
import { subscriptionParams } from '../schemas/subscriptions.ts';
import type { RouteDeps } from '../route-deps.ts';

const WRITE = { oat: ['subscriptions:write'], apiKey: 'subscriptions' } as const;
const DAY_MS = 86_400_000;

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
          '`subscription_not_eligible`. Scope: subscriptions:write.',
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
            gateway_refused: 'the gateway refused to create the mandate; nothing was created',
            payment_method_not_allowed: 'with_renewal for a subscription renewed on its kept card',
          }),
        },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const s = await eligibleSubscription(deps, organizationId, request.params.id, request.body.journey);
      const input: MandateWorkflowInput = {
        mandateId: uuidv7(),
        organizationId,
        subscriptionId: s.id,
        customerId: s.customerId,
        journey: request.body.journey,
        // Journey 4's payer answers when paying the renewal: the days count from its due date.
        answerBy:
          request.body.journey === 'with_renewal'
            ? renewalAnswerBy(new Date(s.currentPeriodEnd).getTime(), request.body.expires_in_days)
            : new Date(Date.now() + request.body.expires_in_days * DAY_MS).toISOString(),
      };
      return reply.status(201).send((await startMandate(deps, input)) as never);
    },
  );
};

/** The organization's subscription `id`, when its payer may be asked for a mandate; else the refusal (404, 409, 422). */
async function eligibleSubscription(
  deps: RouteDeps,
  organizationId: string,
  id: string,
  journey: MandateRequestJourney,
) {
  const em = deps.orm.em.fork();
  const s = isUuid(id) ? await findOwnSubscription(em, { organizationId }, id) : null;
  if (!s) throw notFound('Subscription');
  const [price, customer, live] = await Promise.all([
    checkoutPriceTerms(em, s.priceId),
    findCustomerByKey(em, organizationId, { id: s.customerId }),
    liveMandateOfSubscription(em, s.id),
  ]);
  const refusal = mandateRequestRefusal({
    subscription: s,
    price: {
      id: s.priceId,
      type: price?.priceType ?? 'one_time',
      interval: price?.priceInterval ?? null,
      intervalCount: price?.priceIntervalCount ?? null,
    },
    customer: { name: customer?.name ?? null, taxId: customer?.taxId?.number ?? null },
    rails: {
      gatewayRecurrence: offersRecurringBilling(deps.gateway),
      pixAutomatico: offersPixAutomatico(deps.gateway),
    },
    liveMandate: live?.status ?? null,
    journey,
    hasCard: s.cardTokenId != null,
  });
  if (refusal) throw new ApiError(refusal.status, refusal.code, refusal.message, refusal.detail);
  return s;
}

/** Starts the mandate's workflow with its creation Update, and answers with what the Update answers. */
async function startMandate(deps: RouteDeps, input: MandateWorkflowInput) {
  const startWorkflowOperation = new WithStartWorkflowOperation<MandateWorkflow>('mandateWorkflow', {
    ...mandateWorkflowStart(deps.config.TEMPORAL_TASK_QUEUE, input),
    workflowIdConflictPolicy: 'FAIL',
  });
  try {
    return await deps.temporal.workflow.executeUpdateWithStart(mandateCreationUpdate, { startWorkflowOperation });
  } catch (err) {
    throw creationError(err);
  }
}

/** The workflow's refusals as the API's errors: either way no mandate was kept. */
function creationError(err: unknown): unknown {
  if (!(err instanceof WorkflowUpdateFailedError) || !(err.cause instanceof ApplicationFailure)) return err;
  if (err.cause.type === GATEWAY_REFUSAL) {
    return unprocessable('gateway_refused', 'The gateway refused to create the mandate', err.cause.message);
  }
  if (err.cause.type === 'MandateNotAllowed') {
    return new ApiError(
      409,
      'subscription_not_eligible',
      'The subscription cannot be offered a mandate now',
      err.cause.message,
    );
  }
  if (err.cause.type === MANDATE_EXISTS) {
    return new ApiError(409, MANDATE_EXISTS, 'The subscription has a mandate waiting or approved already');
  }
  return err;
}
