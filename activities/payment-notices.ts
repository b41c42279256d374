import { lockPaymentOfGatewayTransaction } from '../db/checkout/refund-reads.ts';
import { upsertTransaction, writeNoticedTransaction } from '../db/checkout/transactions.ts';
import { lockSaleOfTransaction } from '../db/sale/sales.ts';
import type { Orm } from '../db/orm.ts';
import type { AppliedPaymentNotice, PaymentNoticeActivities } from '../contracts/payment-notice.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { noticeChange, unsoldRefundKey } from '../domain/payment-notices.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { paymentOwnerOf } from '../use-cases/payment-owners.ts';
import { summarize } from './checkout-payments.ts';
import { callGateway } from './gateway-failures.ts';
import { recordUnsoldPaymentRefund } from './duplicate-payment-refunds.ts';

export interface PaymentNoticeDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/**
 * A gateway's notice about a payment whose owner's workflow has ended (decision 0071): the gateway's
 * books are read outside any transaction (no lock is held across a gateway call), then applied to
 * ours under the payment's row lock, the one refunds take, so notices and refunds never interleave.
 */
export function createPaymentNoticeActivities(deps: PaymentNoticeDeps) {
  return {
    async applyPaymentNotice(gatewayTransactionId: string): Promise<AppliedPaymentNotice> {
      const none: AppliedPaymentNotice = { outcome: { owner: null, synced: false, refunded: 0 }, refund: null };
      const books = await callGateway(() => deps.gateway.getTransaction(gatewayTransactionId));
      if (!books) return none;
      const payment = summarize(books);
      return deps.orm.em.fork().transactional(async (tx) => {
        const found = await paymentOwnerOf(tx, books.id, async () => books.reference);
        if (!found) return none;
        const { owner } = found;
        // A checkout's payment we never recorded (its answer lost, or this notice faster): recorded now.
        const recordedNow = !found.transactionId && owner.kind === 'checkout';
        if (recordedNow) {
          const org = { organizationId: owner.organizationId, checkoutId: owner.checkoutId };
          await upsertTransaction(tx, org, payment, 'keep');
        }
        const row = await lockPaymentOfGatewayTransaction(tx, books.id);
        // An invoice's charge we never recorded: its workflow records it when it settles, never this.
        if (!row) return { ...none, outcome: { ...none.outcome, owner: owner.kind } };
        const sold = (await lockSaleOfTransaction(tx, row.id)) !== null;
        const change = noticeChange(owner, sold, books);
        const synced = change.sync && ((await writeNoticedTransaction(tx, row.id, payment)) || recordedNow);
        const refund = change.refund ? { payment, key: unsoldRefundKey(owner, books.id) } : null;
        return { outcome: { owner: owner.kind, synced, refunded: 0 }, refund };
      });
    },

    /** Gives back what is left of a payment no sale accounts for, under a key of its own: once, however often asked. */
    async refundUnsoldPayment(refund: { payment: PaymentSummary; key: string }): Promise<PaymentSummary> {
      const { payment, key } = refund;
      const left = payment.capturedAmount - payment.refundedAmount;
      return summarize(await callGateway(() => deps.gateway.refund(payment.id, left, key)));
    },

    /** The refund's outcome on our copy of the payment, and as a refund of its checkout's sale when it has one. */
    async recordUnsoldRefund(payment: PaymentSummary): Promise<void> {
      await recordUnsoldPaymentRefund(deps.orm, payment);
    },
  } satisfies PaymentNoticeActivities;
}
