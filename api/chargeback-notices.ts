import type { FastifyBaseLogger } from 'fastify';
import { chargebackWorkflowId, type ChargebackWorkflow } from '../contracts/dispute.ts';
import { offersChargebacks } from '../gateway/capabilities.ts';
import { GatewayError } from '../gateway/port.ts';
import { ApiError } from '../use-cases/errors.ts';
import type { RouteDeps } from './route-deps.ts';

const retryLater = () => new ApiError(503, 'temporarily_unavailable', 'Notice not processed; retry later');

/**
 * A gateway's notice of a chargeback (Mercado Pago's `chargebacks` topic, the simulator's
 * `chargeback.updated` callback): the chargeback is read from the gateway, never from the notice,
 * and the workflow that records it is started under its id and state (decision 0072), so a repeated
 * notice joins the run under way and a later state starts another. Nothing is written here. False when
 * the gateway knows no such chargeback (acknowledged: a forged id would otherwise be retried forever);
 * an outage is a 503, so the gateway sends the notice again.
 */
export async function recordChargebackNotice(
  deps: Pick<RouteDeps, 'temporal' | 'config' | 'gateway'>,
  chargebackId: string,
  log: FastifyBaseLogger,
): Promise<boolean> {
  const gateway = deps.gateway;
  if (!offersChargebacks(gateway)) return false;
  let chargeback;
  try {
    chargeback = await gateway.getChargeback(chargebackId);
  } catch (err) {
    const retryable = err instanceof GatewayError && err.retryable;
    log[retryable ? 'warn' : 'error']({ err }, 'could not read the chargeback of a notice');
    throw retryLater();
  }
  if (!chargeback) return false;
  try {
    await deps.temporal.workflow.start<ChargebackWorkflow>('chargebackWorkflow', {
      workflowId: chargebackWorkflowId(chargeback.id, chargeback.status),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [chargeback.id],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  } catch (err) {
    log.warn({ err }, 'could not start the chargeback workflow');
    throw retryLater();
  }
  return true;
}
