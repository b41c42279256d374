import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import { mandateAnswerSignal } from '../contracts/mandate.ts';
import { mandateNoticeSignal } from '../contracts/subscription.ts';
import { mandateWorkflowId } from '../domain/mandate-requests.ts';
import { chargeOfGateway } from '../db/mandate/charges.ts';
import { mandateOfGateway } from '../db/mandate/mandates.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import type { GatewayCallback } from '../gateway/port.ts';
import { serviceUnavailable } from '../use-cases/errors.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * A rec or cobr notice goes to the subscription whose mandate (or mandate charge) it names, by its
 * workflow's mandateNotice signal: the workflow reads the mandate and its charges back from the gateway itself.
 * A mandate asked of an existing subscription's payer (journeys 1 and 2, decision 0098) has its own
 * workflow while the payer answers: its notices go there first, and to the subscription once it has ended.
 * One that is none of ours (not recorded yet, or another system's) is acknowledged and ignored.
 */
export async function signalMandateOwner(
  deps: RouteDeps,
  callback: GatewayCallback,
  log: FastifyBaseLogger,
): Promise<void> {
  const em = deps.orm.em.fork();
  const mandate =
    callback.type === 'mandate.updated' && callback.mandateId ? await mandateOfGateway(em, callback.mandateId) : null;
  const subscriptionId = mandate
    ? mandate.subscriptionId
    : callback.type === 'mandate_charge.updated' && callback.mandateChargeId
      ? (await chargeOfGateway(em, callback.mandateChargeId))?.subscriptionId
      : undefined;
  if (!subscriptionId)
    return log.info({ callback: callback.type }, 'The gateway notified a mandate that is none of ours: ignored');
  try {
    if (mandate && mandate.journey !== 'journey_3' && (await signalMandateWorkflow(deps, mandate.id))) return;
    await deps.temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId)).signal(mandateNoticeSignal);
  } catch (err) {
    // An ended subscription has nothing left to learn; anything else: the gateway sends the notice again.
    if (err instanceof WorkflowNotFoundError) return;
    log.warn({ err }, 'could not signal the subscription of a mandate notice');
    throw serviceUnavailable('temporarily_unavailable', 'Notice not processed; retry later');
  }
}

/** Signals the mandate's own workflow; false when it has none running (it ended, or never had one). */
async function signalMandateWorkflow(deps: RouteDeps, mandateId: string): Promise<boolean> {
  try {
    await deps.temporal.workflow.getHandle(mandateWorkflowId(mandateId)).signal(mandateAnswerSignal);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
