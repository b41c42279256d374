import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import { mandateNoticeSignal } from '../contracts/subscription.ts';
import { chargeOfGateway } from '../db/mandate/charges.ts';
import { mandateOfGateway } from '../db/mandate/mandates.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import type { GatewayCallback } from '../gateway/port.ts';
import { serviceUnavailable } from '../use-cases/errors.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * A rec or cobr notice goes to the subscription whose mandate (or mandate charge) it names, by its
 * workflow's mandateNotice signal: the workflow reads the mandate and its charges back from the gateway itself.
 * One that is none of ours (not recorded yet, or another system's) is acknowledged and ignored.
 */
export async function signalMandateOwner(
  deps: RouteDeps,
  callback: GatewayCallback,
  log: FastifyBaseLogger,
): Promise<void> {
  const em = deps.orm.em.fork();
  const subscriptionId =
    callback.type === 'mandate.updated' && callback.mandateId
      ? (await mandateOfGateway(em, callback.mandateId))?.subscriptionId
      : callback.type === 'mandate_charge.updated' && callback.mandateChargeId
        ? (await chargeOfGateway(em, callback.mandateChargeId))?.subscriptionId
        : undefined;
  if (!subscriptionId)
    return log.info({ callback: callback.type }, 'The gateway notified a mandate that is none of ours: ignored');
  try {
    await deps.temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId)).signal(mandateNoticeSignal);
  } catch (err) {
    // An ended subscription has nothing left to learn; anything else: the gateway sends the notice again.
    if (err instanceof WorkflowNotFoundError) return;
    log.warn({ err }, 'could not signal the subscription of a mandate notice');
    throw serviceUnavailable('temporarily_unavailable', 'Notice not processed; retry later');
  }
}
