import type { PaymentSummary } from '../domain/checkout.ts';
import type { PaymentOwner } from '../domain/payment-notices.ts';

/**
 * What the payment-notice workflow (workflows/payment-notice.ts) is called by and calls: a gateway's
 * notice about a payment whose owner's workflow has ended, applied to our books (decision 0071).
 */

/**
 * One run per payment and status the gateway showed: a repeated notice joins the run under way, and
 * one repeated later starts a run that finds nothing left to change.
 */
export const paymentNoticeWorkflowId = (gatewayTransactionId: string, status: string) =>
  `payment-notice:${gatewayTransactionId}:${status}`;

/** What the run did: whose payment it was (null: none of ours), whether our copy changed, what it gave back. */
export interface PaymentNoticeOutcome {
  owner: PaymentOwner['kind'] | null;
  synced: boolean;
  /** Cents refunded because no sale accounts for the payment (0: none). */
  refunded: number;
}

/** What applying the notice found: the outcome so far, and the payment to give back (with its key) if any. */
export interface AppliedPaymentNotice {
  outcome: PaymentNoticeOutcome;
  refund: { payment: PaymentSummary; key: string } | null;
}

/** The payment-notice workflow as its starters see it (the notice routes). */
export type PaymentNoticeWorkflow = (gatewayTransactionId: string) => Promise<PaymentNoticeOutcome>;

/** The activities it runs (activities/payment-notices.ts). */
export interface PaymentNoticeActivities {
  applyPaymentNotice(gatewayTransactionId: string): Promise<AppliedPaymentNotice>;
  refundUnsoldPayment(refund: { payment: PaymentSummary; key: string }): Promise<PaymentSummary>;
  recordUnsoldRefund(payment: PaymentSummary): Promise<void>;
}
