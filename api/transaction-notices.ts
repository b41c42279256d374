import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import { checkoutWorkflowId, paymentUpdatedSignal, type PaymentUpdate } from '../contracts/checkout.ts';
import { gatewayRefundsWorkflowId, type GatewayRefundsWorkflow } from '../contracts/refund.ts';
import { invoiceNoticeSignal } from '../contracts/invoice.ts';
import { paymentNoticeWorkflowId, type PaymentNoticeWorkflow } from '../contracts/payment-notice.ts';
import type { PaymentOwner } from '../domain/payment-notices.ts';
import { GatewayError, type GatewayTransaction } from '../gateway/port.ts';
import { ApiError } from '../use-cases/errors.ts';
import { paymentOwnerOf } from '../use-cases/payment-owners.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * A gateway's notice about one of its transactions (the simulator's callbacks, Mercado Pago's
 * notifications): the owner of the payment learns of it, its workflow while it runs, else the
 * payment-notice workflow on its behalf. What could not be done now is a 503, so the gateway sends the
 * notice again.
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
 * Takes a gateway's notice about one of its payments to the payment's owner (decision 0071): a
 * checkout, an extra-charge invoice, a renewal or a direct transaction, found by our record of the
 * payment, else (a checkout's payment not recorded yet) by the gateway's record's reference
 * (`gatewayRecord`, read only then). An owner's workflow still running is signalled and asks the
 * gateway itself; once it has ended (and for renewals and direct transactions, whose workflows do not
 * wait on notices), the payment-notice workflow applies the change to our books. False when the
 * payment is none of ours.
 */
export async function deliverPaymentNotice(
  deps: Pick<RouteDeps, 'orm' | 'temporal' | 'config'>,
  update: PaymentUpdate,
  gatewayRecord: () => Promise<GatewayTransaction | null>,
  log: FastifyBaseLogger,
): Promise<boolean> {
  const reference = async () => (await gatewayRecord())?.reference ?? null;
  const found = await paymentOwnerOf(deps.orm.em.fork(), update.transactionId, reference);
  if (!found) return false;
  if (await signalRunningOwner(deps, found.owner, update, log)) return true;
  try {
    await deps.temporal.workflow.start<PaymentNoticeWorkflow>('paymentNoticeWorkflow', {
      workflowId: paymentNoticeWorkflowId(update.transactionId, update.status),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [update.transactionId],
      // A repeated notice joins the run under way; one after it ended starts a run that changes nothing.
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  } catch (err) {
    log.warn({ err }, 'could not start the payment-notice workflow');
    throw retryLater();
  }
  return true;
}

/** Signals the owner's workflow; false when it has ended (or the owner has none that waits on notices). */
async function signalRunningOwner(
  deps: Pick<RouteDeps, 'temporal'>,
  owner: PaymentOwner,
  update: PaymentUpdate,
  log: FastifyBaseLogger,
): Promise<boolean> {
  try {
    if (owner.kind === 'checkout') {
      await deps.temporal.workflow.getHandle(checkoutWorkflowId(owner.checkoutId)).signal(paymentUpdatedSignal, update);
    } else if (owner.kind === 'invoice') {
      await deps.temporal.workflow.getHandle(owner.workflowId).signal(invoiceNoticeSignal, { status: update.status });
    } else {
      return false;
    }
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    log.warn({ err }, `could not signal the ${owner.kind} workflow of a payment notice`);
    throw retryLater();
  }
}

/**
 * A gateway's notice that names one of its payments (Mercado Pago's, Efí's): the payment is read back
 * from the gateway, never believed from the notice, its owner learns the id and status the gateway
 * answers, and a refund made in the gateway's panel is recorded. A payment the gateway does not know, or
 * that is none of ours, is acknowledged and ignored (a forged id would otherwise be retried forever).
 */
export async function deliverGatewayPayment(
  deps: Pick<RouteDeps, 'gateway' | 'orm' | 'temporal' | 'config'>,
  paymentId: string,
  log: FastifyBaseLogger,
  gatewayName: string,
): Promise<void> {
  const payment = await readGatewayTransaction(deps, paymentId, log);
  if (!payment) return log.warn(`${gatewayName} notified a payment it does not know: ignored`);
  const update = { transactionId: payment.id, status: payment.status };
  if (!(await deliverPaymentNotice(deps, update, async () => payment, log))) {
    log.info(`${gatewayName} notified a payment that is none of ours: ignored`);
  }
  // A refund made in the gateway's panel arrives as this same notice: its workflow records it.
  await recordGatewayRefundsOf(deps, payment, log);
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
