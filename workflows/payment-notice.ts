import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { PaymentNoticeActivities, PaymentNoticeOutcome } from '../contracts/payment-notice.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import { PAYMENT_ISSUE } from '../domain/search-attributes.ts';
import { asSystem } from './actor-interceptors.ts';

const { applyPaymentNotice, refundUnsoldPayment, recordUnsoldRefund } = proxyActivities<PaymentNoticeActivities>({
  startToCloseTimeout: '30 seconds',
  // The gateway's word must reach our books, and money without a sale must go back: retried until
  // they do, under the same key (an outage only delays it); a refusal of the refund needs an operator.
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: [GATEWAY_REFUSAL],
  },
});

/**
 * A gateway's notice about a payment whose owner's workflow has ended (decision 0071): our copy of
 * the payment takes the gateway's word, and a payment holding money no sale accounts for (a checkout
 * that ended without it, a renewal or extra charge recorded as refused) is refunded and recorded so.
 * Started by the notice routes, one run per payment and status; the gateway's doing, not a person's.
 */
export async function paymentNoticeWorkflow(gatewayTransactionId: string): Promise<PaymentNoticeOutcome> {
  return asSystem(async () => {
    const applied = await applyPaymentNotice(gatewayTransactionId);
    if (!applied.refund) return applied.outcome;
    const refunded = await refundUnsoldPayment(applied.refund);
    await recordUnsoldRefund(refunded);
    upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: 'late_payment_undone' }]);
    const given = applied.refund.payment.capturedAmount - applied.refund.payment.refundedAmount;
    return { ...applied.outcome, refunded: given };
  });
}
