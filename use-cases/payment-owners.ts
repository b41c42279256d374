import type { EntityManager } from '@mikro-orm/postgresql';
import { checkoutStateOf, transactionOfGatewayPayment } from '../db/checkout/notice-reads.ts';
import { invoiceOfTransaction, invoicesOfGatewayInvoices } from '../db/invoice/records.ts';
import { subscriptionOfChargeTransaction } from '../db/subscription/charges.ts';
import type { CheckoutStatus } from '../domain/checkout.ts';
import type { PaymentOwner } from '../domain/payment-notices.ts';
import { isUuid } from './schemas/common.ts';

/**
 * Who a gateway payment belongs to (decision 0071): by our record of it, its checkout, else the
 * extra-charge invoice or the renewal try that recorded it, else a payment of its own (a direct
 * transaction, or a subscription's extra charge). With no record of ours, by the payment's
 * reference: a checkout (its payment made and never recorded: its answer lost, or the notice faster),
 * or an extra-charge invoice, whose charge the gateway makes itself and tags with the invoice's gateway
 * id, and which its workflow records only once it learns of it (a lost notice leaves it waiting).
 * Renewals and direct transactions record each payment their key made before their workflow ends.
 * Null: none of ours.
 */
export async function paymentOwnerOf(
  em: EntityManager,
  gatewayTransactionId: string,
  reference: () => Promise<string | null>,
): Promise<{ owner: PaymentOwner; transactionId: string | null } | null> {
  const recorded = await transactionOfGatewayPayment(em, gatewayTransactionId);
  if (recorded) return { owner: await ownerOfRecorded(em, recorded), transactionId: recorded.id };
  const ref = await reference();
  if (!ref) return null;
  if (!isUuid(ref)) {
    const [invoice] = await invoicesOfGatewayInvoices(em, [ref]);
    return invoice
      ? { owner: { kind: 'invoice', invoiceId: invoice.id, workflowId: invoice.workflowId }, transactionId: null }
      : null;
  }
  const checkout = await checkoutStateOf(em, ref);
  return checkout ? { owner: checkoutOwner(ref, checkout), transactionId: null } : null;
}

async function ownerOfRecorded(em: EntityManager, t: { id: string; checkoutId: string | null }): Promise<PaymentOwner> {
  const checkout = t.checkoutId ? await checkoutStateOf(em, t.checkoutId) : null;
  if (t.checkoutId && checkout) return checkoutOwner(t.checkoutId, checkout);
  const invoice = await invoiceOfTransaction(em, t.id);
  if (invoice) return { kind: 'invoice', invoiceId: invoice.id, workflowId: invoice.workflowId };
  const subscriptionId = await subscriptionOfChargeTransaction(em, t.id);
  if (subscriptionId) return { kind: 'renewal', subscriptionId };
  return { kind: 'direct' };
}

const checkoutOwner = (checkoutId: string, c: { status: CheckoutStatus; organizationId: string }): PaymentOwner => ({
  kind: 'checkout',
  checkoutId,
  checkoutStatus: c.status,
  organizationId: c.organizationId,
});
