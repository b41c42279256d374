import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { mandateWithdrawUpdate } from '../contracts/mandate.ts';
import { NOT_PIX_AUTOMATICO, revokeMandateUpdate } from '../contracts/subscription.ts';
import { chargesOfMandate } from '../db/mandate/charges.ts';
import { liveMandateOfSubscription, mandateById, mandateOfSubscription } from '../db/mandate/mandates.ts';
import { mandateWorkflowId } from '../domain/mandate-requests.ts';
import { offersPixAutomatico } from '../gateway/capabilities.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { findOwnSubscription } from '../db/subscription/rows.ts';
import { isMandateFinal, periodDueDate } from '../domain/pix-automatico.ts';
import { SUBSCRIPTION_ENDED } from '../domain/subscriptions.ts';
import { ApiError, notFound, unprocessable } from '../use-cases/errors.ts';
import type { PortalCustomerScope } from '../use-cases/portal-reads.ts';
import { isUuid } from '../use-cases/schemas/common.ts';
import { mandateChargeEventData, mandateEventData } from '../use-cases/schemas/mandates.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * A Pix Automático subscription's mandate as its customer sees it (decision 0096): the portal's pages
 * and its JSON API both read it here, and both revoke it here, through the subscription's workflow.
 */

const STATUSES = ['trialing', 'active', 'past_due'];

/** What the summary takes of the subscription (its row or entity). */
interface SubscriptionTerms {
  id: string;
  status: string;
  currentPeriodEnd: Date | string;
  amount: number | string | bigint;
}

/** The mandate's summary: its terms, the next charge (due the day the current period ends, in Brasília), its charges. */
export async function portalMandateOf(em: EntityManager, subscription: SubscriptionTerms) {
  const mandate = await mandateOfSubscription(em, subscription.id);
  if (!mandate) return null;
  const charges = await chargesOfMandate(em, mandate.id);
  const s = subscription;
  const { id, status, journey, periodicity, start_date, payer_maximum, currency, cancellation, rejection } =
    mandateEventData(mandate);
  // A charge is due only while both the mandate and the subscription still run.
  const charging = !isMandateFinal(mandate.status) && STATUSES.includes(s.status);
  return {
    id,
    status,
    journey,
    periodicity,
    start_date,
    payer_maximum,
    currency,
    cancellation,
    rejection,
    next_charge: charging
      ? { due_date: periodDueDate(new Date(s.currentPeriodEnd).getTime()), amount: Number(s.amount) }
      : null,
    charges: charges.map(mandateChargeEventData).map((c) => ({
      period: c.period,
      due_date: c.due_date,
      amount: c.amount,
      status: c.status,
      failure_reason: c.failure_reason,
      failure_description: c.failure_description,
      attempts: c.attempts.map((a) => ({
        settlement_date: a.settlement_date,
        kind: a.kind,
        status: a.status,
        failure_reason: a.failure_reason,
        failure_description: a.failure_description,
      })),
    })),
  };
}
export type PortalMandate = NonNullable<Awaited<ReturnType<typeof portalMandateOf>>>;

/** The status of the subscription's mandate the portal shows (what its page's script polls); null when none. */
export async function portalMandateStatus(em: EntityManager, subscriptionId: string) {
  return (await mandateOfSubscription(em, subscriptionId))?.status ?? null;
}

/** The mandate of a subscription that is already cancelled, rejected or expired. */
export const MANDATE_ENDED = 'mandate_ended';

/**
 * The customer revokes its subscription's Pix Automático authorization: sent to the subscription's
 * workflow (its only writer), which cancels the mandate at the gateway as the receiver and records it.
 * A manual subscription's mandate still waiting for the payer is withdrawn by its own workflow instead
 * (workflows/mandate.ts, decision 0101), cancelled at the gateway alike (SLCR).
 * Not behind allow_customer_updates: a payer may always revoke, at its bank too. An ended mandate is
 * refused (422 mandate_ended); another customer's subscription is a 404.
 */
export async function revokePortalMandate(
  deps: RouteDeps,
  scope: PortalCustomerScope,
  subscriptionId: string,
): Promise<PortalMandate> {
  const em = deps.orm.em.fork();
  const subscription = isUuid(subscriptionId) ? await findOwnSubscription(em, scope, subscriptionId) : null;
  if (!subscription) throw notFound('Subscription');
  const mandate = await mandateOfSubscription(em, subscription.id);
  if (!mandate) throw unprocessable('no_mandate', 'The subscription has no Pix Automático mandate');
  if (isMandateFinal(mandate.status)) {
    throw unprocessable(MANDATE_ENDED, `The mandate is ${mandate.status} already`);
  }
  if (mandate.status === 'created' && subscription.recurrenceBilling === 'manual') {
    await withdrawWaitingMandate(deps, mandate.id);
    return (await portalMandateOf(deps.orm.em.fork(), subscription))!;
  }
  try {
    await deps.temporal.workflow.getHandle(subscription.workflowId).executeUpdate(revokeMandateUpdate, { args: [] });
  } catch (err) {
    throw revokeError(err);
  }
  return (await portalMandateOf(deps.orm.em.fork(), subscription))!;
}

function revokeError(err: unknown): unknown {
  const ended = new ApiError(409, SUBSCRIPTION_ENDED, 'Subscription ended', 'An ended subscription has no mandate');
  if (err instanceof WorkflowNotFoundError) return ended;
  if (!(err instanceof WorkflowUpdateFailedError)) return err;
  const cause = err.cause instanceof ApplicationFailure ? err.cause : err.cause?.cause;
  if (!(cause instanceof ApplicationFailure)) return err;
  if (cause.type === SUBSCRIPTION_ENDED) return ended;
  if (cause.type === NOT_PIX_AUTOMATICO) return unprocessable('no_mandate', cause.message);
  return err;
}

/**
 * A waiting mandate withdrawn through its own workflow, which cancels it at the gateway (SLCR) and records
 * it. A workflow that has ended meanwhile (the payer answered, the request expired) changes nothing: the
 * mandate as it then stands is the answer, an ended one refused as any ended mandate is.
 */
async function withdrawWaitingMandate(deps: RouteDeps, mandateId: string): Promise<void> {
  try {
    await deps.temporal.workflow.getHandle(mandateWorkflowId(mandateId)).executeUpdate(mandateWithdrawUpdate);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError) && !(err instanceof WorkflowUpdateFailedError)) throw err;
  }
  const now = await mandateById(deps.orm.em.fork(), mandateId);
  if (now && isMandateFinal(now.status) && now.status !== 'cancelled') {
    throw unprocessable(MANDATE_ENDED, `The mandate is ${now.status} already`);
  }
}

/** What the portal offers a manual subscription's customer about Pix Automático (decision 0101). */
export type PortalActivation = { kind: 'offer' } | { kind: 'waiting'; qrCode: string; startDate: string } | null;

const ACTIVATABLE = ['trialing', 'active'];

/**
 * A manual subscription's Pix Automático in the portal: the QR code of its mandate while it waits for the
 * payer, else the offer to activate it (a subscription that may switch, on a gateway that offers it; the
 * domain rule decides when it is asked, api/subscription-mandate-requests.ts), else nothing.
 */
export async function portalActivationOf(
  em: EntityManager,
  gateway: PaymentGateway,
  subscription: { id: string; status: string; recurrenceBilling: string; cancelAtPeriodEnd: boolean },
): Promise<PortalActivation> {
  if (subscription.recurrenceBilling !== 'manual') return null;
  const live = await liveMandateOfSubscription(em, subscription.id);
  if (live) {
    if (live.status !== 'created' || !live.qrCode) return null;
    return { kind: 'waiting', qrCode: live.qrCode, startDate: live.startDate };
  }
  const may = ACTIVATABLE.includes(subscription.status) && !subscription.cancelAtPeriodEnd;
  return may && offersPixAutomatico(gateway) ? { kind: 'offer' } : null;
}
