import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { uuidv7 } from 'uuidv7';
import {
  MANDATE_EXISTS,
  mandateCreationUpdate,
  type MandateRecord,
  type MandateWorkflow,
  type MandateWorkflowInput,
} from '../contracts/mandate.ts';
import { checkoutPriceTerms } from '../db/catalog/checkout-reads.ts';
import { findCustomerByKey } from '../db/customer/customers.ts';
import { liveMandateOfSubscription } from '../db/mandate/mandates.ts';
import { findOwnSubscription } from '../db/subscription/rows.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import {
  mandateRequestRefusal,
  payerAccountRefusal,
  renewalAnswerBy,
  type MandateRequestJourney,
  type PayerBankAccount,
} from '../domain/mandate-requests.ts';
import { mandateRequestRequires, offersPixAutomatico, offersRecurringBilling } from '../gateway/capabilities.ts';
import { mandateWorkflowStart } from '../temporal/workflow-starts.ts';
import { ApiError, notFound, unprocessable } from '../use-cases/errors.ts';
import { isUuid } from '../use-cases/schemas/common.ts';
import type { RouteDeps } from './route-deps.ts';

const DAY_MS = 86_400_000;

/**
 * A subscription's payer asked for a Pix Automático mandate (decision 0098): the merchant's
 * POST /subscriptions/{id}/mandates and the customer portal's "Ativar Pix Automático" (decision 0101)
 * both ask here. The domain rule refuses (404, 409, 422); else the mandate's own workflow creates it at
 * the gateway and records it, and its creation Update's answer (the mandate, `created`) is returned.
 * `scope.customerId`: only that customer's subscription (the portal's); another's is a 404.
 */
export async function requestSubscriptionMandate(
  deps: RouteDeps,
  scope: { organizationId: string; customerId?: string },
  subscriptionId: string,
  ask: { journey: MandateRequestJourney; expiresInDays: number; payerAccount?: PayerBankAccount | null },
): Promise<MandateRecord> {
  const s = await eligibleSubscription(deps, scope, subscriptionId, ask.journey);
  const payerAccount = ask.payerAccount ?? null;
  const accountRefusal = payerAccountRefusal(
    ask.journey,
    payerAccount,
    mandateRequestRequires(deps.gateway, 'payer_account'),
  );
  if (accountRefusal) {
    const { status, code, message, detail } = accountRefusal;
    throw new ApiError(status, code, message, detail);
  }
  const input: MandateWorkflowInput = {
    mandateId: uuidv7(),
    organizationId: scope.organizationId,
    subscriptionId: s.id,
    customerId: s.customerId,
    journey: ask.journey,
    // Journey 4's payer answers when paying the renewal: the days count from its due date.
    answerBy:
      ask.journey === 'with_renewal'
        ? renewalAnswerBy(new Date(s.currentPeriodEnd).getTime(), ask.expiresInDays)
        : new Date(Date.now() + ask.expiresInDays * DAY_MS).toISOString(),
    payerAccount,
  };
  return startMandate(deps, input);
}

/** The subscription `id` in scope, when its payer may be asked for a mandate; else the refusal (404, 409, 422). */
async function eligibleSubscription(
  deps: RouteDeps,
  scope: { organizationId: string; customerId?: string },
  id: string,
  journey: MandateRequestJourney,
) {
  const em = deps.orm.em.fork();
  const s = isUuid(id) ? await findOwnSubscription(em, scope, id) : null;
  if (!s) throw notFound('Subscription');
  const [price, customer, live] = await Promise.all([
    checkoutPriceTerms(em, s.priceId),
    findCustomerByKey(em, scope.organizationId, { id: s.customerId }),
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
async function startMandate(deps: RouteDeps, input: MandateWorkflowInput): Promise<MandateRecord> {
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
