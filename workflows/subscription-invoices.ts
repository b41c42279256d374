import { getExternalWorkflowHandle, log } from '@temporalio/workflow';
import { invoiceVoidSignal, invoiceWorkflowId } from '../contracts/invoice.ts';
import { records } from './subscription-activity-proxies.ts';

/**
 * The subscription ended: its pending extra charges are voided, each by its own workflow (the
 * invoice's only writer), so that none can be paid after the end (the gateway's invoices, and a
 * manual subscription's, which would charge its kept card on their due date). One already settled
 * ignores it.
 */
export async function voidPendingInvoices(subscriptionId: string): Promise<void> {
  const invoiceIds = await records.pendingInvoiceIds(subscriptionId);
  for (const invoiceId of invoiceIds) {
    try {
      await getExternalWorkflowHandle(invoiceWorkflowId(invoiceId)).signal(invoiceVoidSignal);
    } catch (err) {
      // Its run closed meanwhile (settled at its deadline or paid): nothing is left to void.
      log.info('The invoice has no running workflow to void it', { invoiceId, error: String(err) });
    }
  }
}
