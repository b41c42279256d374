import { lockPaymentOfGatewayTransaction } from '../db/checkout/refund-reads.ts';
import { writeNoticedTransaction } from '../db/checkout/transactions.ts';
import { recordEvent } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { insertGatewayRefund, succeededRefundSum } from '../db/sale/refunds.ts';
import { lockSaleOfTransaction, saleOfCheckout } from '../db/sale/sales.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { DUPLICATE_PAYMENT_REASON } from '../domain/refunds.ts';
import { presentRefund } from '../use-cases/schemas/refunds.ts';

/**
 * A payment no sale accounts for, just given back at the gateway (`refunded`, the gateway's answer):
 * our copy takes the gateway's amounts and status, and when its checkout was paid another way (a pix
 * or boleto a bank paid after the card) the refund is recorded against that checkout's sale, reason
 * `duplicate`, with its `refund.created`, so the merchant sees it (decision 0089). The sale itself
 * stays paid: its own payment was not refunded. Only what no refund row holds yet is recorded, so a
 * retried or repeated call records nothing more.
 */
export async function recordUnsoldPaymentRefund(orm: Orm, refunded: PaymentSummary): Promise<void> {
  await orm.em.fork().transactional(async (tx) => {
    const payment = await lockPaymentOfGatewayTransaction(tx, refunded.id);
    if (!payment) return;
    await writeNoticedTransaction(tx, payment.id, refunded);
    if (!payment.checkoutId || (await lockSaleOfTransaction(tx, payment.id))) return;
    const sale = await saleOfCheckout(tx, payment.checkoutId);
    const amount = refunded.refundedAmount - (await succeededRefundSum(tx, payment.id));
    if (!sale || amount <= 0) return;
    const refund = await insertGatewayRefund(
      tx,
      {
        organizationId: payment.organizationId,
        saleId: sale.saleId,
        transactionId: payment.id,
        amount,
        reason: DUPLICATE_PAYMENT_REASON,
      },
      new Date(),
    );
    recordEvent(tx, payment.organizationId, 'refund.created', presentRefund(refund, payment.currency));
  });
}
