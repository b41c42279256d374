import { checkoutKeys, type CheckoutStatus } from './checkout.ts';

/**
 * A gateway's notice about one of its payments, once the workflow that made the payment has ended
 * (decision 0071): who the payment belongs to, and what the notice changes in our books.
 */

/** Who made a payment, as our books say (or, for a checkout or an invoice, as the payment's reference says). */
export type PaymentOwner =
  | { kind: 'checkout'; checkoutId: string; checkoutStatus: CheckoutStatus; organizationId: string }
  | { kind: 'invoice'; invoiceId: string; workflowId: string }
  | { kind: 'renewal'; subscriptionId: string }
  | { kind: 'direct' };

/** Checkout statuses of a checkout whose outcome is settled: no payment of it can still become its sale. */
const SETTLED_CHECKOUT: ReadonlySet<CheckoutStatus> = new Set(['succeeded', 'failed', 'expired']);

/** What a notice changes: our copy of the payment brought to the gateway's word, and whether it is given back. */
export interface NoticeChange {
  /** Copy the gateway's status, captured and refunded amounts onto our transaction. */
  sync: boolean;
  /** The payment holds money no sale accounts for: refund what is left of it. */
  refund: boolean;
}

/**
 * The rule. A payment that paid a sale changes only by refunds and disputes, which their own
 * workflows record against the sale (refunds: the gateway-refunds workflow, decision 0068): nothing
 * here. A payment with no sale: copied whole; and if it holds money (captured, not all
 * refunded) for a checkout whose outcome is settled, or for a renewal or an extra charge that its
 * workflow recorded without a sale, it is given back: never money without a sale. A direct
 * transaction has no sale by design and is only copied.
 */
export function noticeChange(
  owner: PaymentOwner,
  sold: boolean,
  payment: { status: string; capturedAmount: number; refundedAmount: number },
): NoticeChange {
  if (sold) return { sync: false, refund: false };
  const holdsMoney = payment.capturedAmount > payment.refundedAmount;
  const ownerSettled = owner.kind === 'checkout' ? SETTLED_CHECKOUT.has(owner.checkoutStatus) : owner.kind !== 'direct';
  return { sync: true, refund: holdsMoney && ownerSettled };
}

/**
 * The gateway key of the refund of a payment with no sale. A checkout's is the one its own workflow
 * gives an abandoned or late payment back with (workflows/checkout-aftermath.ts), so the two can
 * never refund the payment twice; another owner's is the payment's own.
 */
export function unsoldRefundKey(owner: PaymentOwner, gatewayTransactionId: string): string {
  return owner.kind === 'checkout'
    ? checkoutKeys.compensation(owner.checkoutId, gatewayTransactionId)
    : `payment:${gatewayTransactionId}:unsold-refund`;
}
