import { checkoutStateOf } from '../db/checkout/notice-reads.ts';
import { lockPaymentOfGatewayTransaction } from '../db/checkout/refund-reads.ts';
import { writeNoticedTransaction } from '../db/checkout/transactions.ts';
import { recordEvent } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { insertGatewayRefund, succeededRefundSum } from '../db/sale/refunds.ts';
import { lockSaleOfTransaction, saleOfCheckout } from '../db/sale/sales.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { DUPLICATE_PAYMENT_REASON, unsoldPaymentRefundReason } from '../domain/refunds.ts';
import { presentRefund } from '../use-cases/schemas/refunds.ts';

/**
 * A payment no sale accounts for, just given back at the gateway (`refunded`, the gateway's answer):
 * our copy takes the gateway's amounts and status, and the refund is recorded with its `refund.created`,
 * so the merchant sees it: when its checkout was paid another way (a pix or boleto a bank paid after the
 * card), against that checkout's sale, reason `duplicate` (decision 0089); when the checkout ended
 * without a sale (expired, failed), as a refund of the payment alone, reason `late_payment` (decision
 * 0095). A sale stays paid: its own payment was not refunded. Only what no refund row holds yet is
 * recorded, under the payment's row lock, so a retried or repeated call records nothing more.
 */
export async function recordUnsoldPaymentRefund(orm: Orm, refunded: PaymentSummary): Promise<void> {
  await orm.em.fork().transactional(async (tx) => {
    const payment = await lockPaymentOfGatewayTransaction(tx, refunded.id);
    if (!payment) return;
    await writeNoticedTransaction(tx, payment.id, refunded);
    if (!payment.checkoutId || (await lockSaleOfTransaction(tx, payment.id))) return;
    const amount = refunded.refundedAmount - (await succeededRefundSum(tx, payment.id));
    if (amount <= 0) return;
    const sale = await saleOfCheckout(tx, payment.checkoutId);
    const checkout = sale ? null : await checkoutStateOf(tx, payment.checkoutId);
    const refund = await insertGatewayRefund(
      tx,
      {
        organizationId: payment.organizationId,
        saleId: sale?.saleId ?? null,
        transactionId: payment.id,
        amount,
        reason: checkout ? unsoldPaymentRefundReason(checkout.status) : DUPLICATE_PAYMENT_REASON,
      },
      new Date(),
    );
    recordEvent(tx, payment.organizationId, 'refund.created', presentRefund(refund, payment.currency));
  });
}
