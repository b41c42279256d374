import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import { invoiceWorkflowOfGateway } from '../db/invoice/records.ts';
import type { GatewayCallback } from '../gateway/port.ts';
import { ApiError } from '../use-cases/errors.ts';
import { invoiceNoticeSignal } from '../contracts/invoice.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * An `invoice.updated` notice of the gateway, for one of our extra-charge invoices: its workflow is
 * woken to ask the gateway what happened. False when the gateway invoice is not an extra charge we
 * stored (another kind of invoice may be, see api/routes/gateway-callbacks.ts). A workflow that could
 * not be told is a 503, so the gateway sends the notice again.
 */
export async function signalInvoiceNotice(
  deps: Pick<RouteDeps, 'orm' | 'temporal'>,
  notice: Pick<GatewayCallback, 'id' | 'invoiceId' | 'status'>,
  log: FastifyBaseLogger,
): Promise<boolean> {
  if (!notice.invoiceId) return false;
  const workflowId = await invoiceWorkflowOfGateway(deps.orm.em.fork(), notice.invoiceId);
  if (!workflowId) return false;
  try {
    await deps.temporal.workflow.getHandle(workflowId).signal(invoiceNoticeSignal, { status: notice.status });
  } catch (err) {
    // A settled invoice's workflow has ended: it has nothing left to learn.
    if (err instanceof WorkflowNotFoundError) return true;
    log.warn({ err, callback: notice.id }, 'could not signal invoice workflow');
    throw new ApiError(503, 'temporarily_unavailable', 'Callback not processed; retry later');
  }
  return true;
}
