import { condition, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { paymentKey, type PaymentSummary } from '../domain/checkout.ts';
import { PAYMENT_ISSUE } from '../domain/search-attributes.ts';
import { PIX_EXPIRED } from '../domain/pending-payments.ts';
import {
  DEADLINE_SLACK_MS,
  LATE_ARRIVAL_WINDOW,
  records,
  untilAnswered,
  type Attempt,
} from './checkout-activity-proxies.ts';

/** What a checkout's workflow does once its outcome is settled: late payments undone, abandoned ones watched. */

/**
 * A call the gateway once said it never processed, found done after all: a capture that is not the
 * checkout's recorded payment is refunded, a pix/boleto issued late is cancelled, and the run is
 * flagged for an operator. Never money without a sale.
 */
export async function undoLateArrivals(
  checkoutId: string,
  doubtful: readonly Attempt[],
  recordedPaymentId: string | null,
): Promise<void> {
  await sleep(LATE_ARRIVAL_WINDOW);
  for (const a of doubtful) {
    const late = await untilAnswered.findPayment(paymentKey(checkoutId, a.request.paymentMethod, a.slot));
    if (!late || late.id === recordedPaymentId) continue;
    if (late.capturedAmount > late.refundedAmount) await untilAnswered.refundUnrecordedCapture(checkoutId, late);
    else if (late.status === 'pending') await untilAnswered.cancelPendingPayment(checkoutId, late.id);
    else continue;
    upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: 'late_payment_undone' }]);
  }
}

/**
 * A pix or boleto the buyer gave up for a card (cancelled, yet payable by a bank until its deadline), or
 * a card under review given up (cancelled, its approval maybe crossing the cancellation): watched until `payBy`.
 */
export type AbandonedPayment = { transactionId: string; payBy: number };

/**
 * After the checkout's end, each abandoned payment is watched until its deadline: one paid anyway (the
 * gateway's notice, or a last look at the deadline) is refunded in full, and our record of it shows the
 * refund. `notices` are the transactions the gateway told the run about (its signal handler keeps adding
 * to them).
 */
export async function refundAbandonedPayments(
  checkoutId: string,
  abandoned: readonly AbandonedPayment[],
  notices: string[],
): Promise<void> {
  for (const a of abandoned) {
    const noticed = () => notices.includes(a.transactionId);
    for (;;) {
      // A notice (its cancellation's own, or a payment), else one last look at the deadline.
      const woke = await condition(noticed, Math.max(a.payBy + DEADLINE_SLACK_MS - Date.now(), 1));
      notices.splice(0, notices.length, ...notices.filter((id) => id !== a.transactionId));
      const payment = await untilAnswered.syncPayment(a.transactionId);
      if (payment.capturedAmount > payment.refundedAmount) {
        await untilAnswered.refundUnrecordedCapture(checkoutId, payment);
        await untilAnswered.syncPayment(a.transactionId);
        upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: 'abandoned_payment_refunded' }]);
        break;
      }
      if (!woke) break;
    }
  }
}

/**
 * A pix that expired unpaid while its checkout has time left (decision 0089): the checkout opens again
 * (not a decline), so the buyer asks for a new code as a new confirmation (a new charge, its own slot).
 * The expired pix was cancelled; should a bank pay it anyway, it is refunded as an abandoned payment.
 */
export async function reopenForNewPix(
  checkoutId: string,
  expired: AbandonedPayment,
  settled: PaymentSummary,
  abandoned: AbandonedPayment[],
): Promise<void> {
  abandoned.push({ transactionId: expired.transactionId, payBy: expired.payBy });
  await records.reopenCheckout(checkoutId, PIX_EXPIRED, settled);
}

/**
 * A card to keep whose payment was approved after its review (not at once, when the charge itself kept
 * it): kept now, so the subscription has its card for its renewals (decision 0074). Any other payment
 * as it is.
 */
export async function withReviewedCardKept(
  checkoutId: string,
  a: Attempt,
  payment: PaymentSummary | null,
): Promise<PaymentSummary | null> {
  const card = a.request.paymentMethod === 'credit_card' ? a.request.card : null;
  if (!payment || payment.status !== 'succeeded' || !card?.browser?.keep || payment.keptCardId !== undefined) {
    return payment;
  }
  const keptCardId = await untilAnswered.keepReviewedCard({ checkoutId, slot: a.slot, cardTokenId: card.id });
  return { ...payment, keptCardId };
}
