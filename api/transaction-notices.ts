import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import { checkoutWorkflowId, paymentUpdatedSignal, type PaymentUpdate } from '../contracts/checkout.ts';
import { gatewayRefundsWorkflowId, type GatewayRefundsWorkflow } from '../contracts/refund.ts';
import { checkoutExists, checkoutOfGatewayTransaction } from '../db/checkout/notice-reads.ts';
import { GatewayError, type GatewayTransaction } from '../gateway/port.ts';
import { ApiError } from '../use-cases/errors.ts';
import { isUuid } from '../use-cases/schemas/common.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * A gateway's notice about one of its transactions (the simulator's callbacks, Mercado Pago's
 * notifications): the checkout the transaction was made for is woken, and its workflow asks the
 * gateway what happened. What could not be done now is a 503, so the gateway sends the notice again.
 */

const retryLater = () => new ApiError(503, 'temporarily_unavailable', 'Callback not processed; retry later');

/** The gateway's own record of a transaction (null: it knows none); unanswered, a 503. */
export async function readGatewayTransaction(
  deps: Pick<RouteDeps, 'gateway'>,
  gatewayTransactionId: string,
  log: FastifyBaseLogger,
): Promise<GatewayTransaction | null> {
  try {
    return await deps.gateway.getTransaction(gatewayTransactionId);
  } catch (err) {
    // A refusal (our credentials, a status we cannot map) needs the operator; an outage only time.
    const retryable = err instanceof GatewayError && err.retryable;
    log[retryable ? 'warn' : 'error']({ err }, 'could not read the gateway transaction of a notice');
    throw retryLater();
  }
}

/**
 * Signals the checkout a gateway transaction was made for; false when it is none of ours. The
 * checkout is found by our record of the transaction, else by the gateway's own (`gatewayRecord`):
 * a notice can beat the answer of the call that made the payment (or that answer was lost), and the
 * gateway's record names the checkout in its reference.
 */
export async function signalCheckoutOfTransaction(
  deps: Pick<RouteDeps, 'orm' | 'temporal'>,
  update: PaymentUpdate,
  gatewayRecord: () => Promise<GatewayTransaction | null>,
  log: FastifyBaseLogger,
): Promise<boolean> {
  const checkoutId = await checkoutOfTransaction(deps, update.transactionId, gatewayRecord);
  if (!checkoutId) return false;
  try {
    await deps.temporal.workflow.getHandle(checkoutWorkflowId(checkoutId)).signal(paymentUpdatedSignal, update);
  } catch (err) {
    // A finished checkout has nothing left to learn; anything else: the gateway retries later.
    if (err instanceof WorkflowNotFoundError) return true;
    log.warn({ err }, 'could not signal checkout workflow');
    throw retryLater();
  }
  return true;
}

async function checkoutOfTransaction(
  deps: Pick<RouteDeps, 'orm'>,
  gatewayTransactionId: string,
  gatewayRecord: () => Promise<GatewayTransaction | null>,
): Promise<string | null> {
  const em = deps.orm.em.fork();
  const recorded = await checkoutOfGatewayTransaction(em, gatewayTransactionId);
  if (recorded) return recorded;
  const t = await gatewayRecord();
  if (!t || !isUuid(t.reference)) return null;
  return (await checkoutExists(em, t.reference)) ? t.reference : null;
}

/**
 * A payment the gateway shows refunded: the gateway-refunds workflow records what no refund of ours
 * accounts for (a refund made in the gateway's panel; decision 0068). One run per payment and
 * refunded total, so a repeated notice joins it; the route writes nothing itself.
 */
export async function recordGatewayRefundsOf(
  deps: Pick<RouteDeps, 'temporal' | 'config'>,
  payment: GatewayTransaction,
  log: FastifyBaseLogger,
): Promise<void> {
  if (payment.refundedAmount <= 0) return;
  try {
    await deps.temporal.workflow.start<GatewayRefundsWorkflow>('gatewayRefundsWorkflow', {
      workflowId: gatewayRefundsWorkflowId(payment.id, payment.refundedAmount),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [payment.id],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  } catch (err) {
    log.warn({ err }, 'could not start the gateway-refunds workflow');
    throw retryLater();
  }
}
