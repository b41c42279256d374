import type { CheckoutStatus } from './checkout.ts';

/** What is still refundable: what was paid, less what is refunded or on its way to being refunded. */
export function refundableAmount(paid: number, refunded: number, pending: number): number {
  return Math.max(0, paid - refunded - pending);
}

export interface RefundRefusal {
  code: 'nothing_to_refund' | 'refund_exceeds_captured' | 'sale_disputed';
  message: string;
  detail?: string;
}

/**
 * How much a refund asked of a payment gives back: `requested`, or all that is still refundable when
 * none is named; refused when nothing is left (a sale of a zero total has no payment at all), when
 * more is asked than is left, or while the buyer's bank disputes the payment (the card network decides
 * where that money goes; decision 0072). What lost disputes took back is no longer the merchant's to
 * give: it counts as given back already.
 */
export function refundAmount(
  requested: number | undefined,
  payment: { captured: number; refunded: number; pending: number; chargedBack?: number; disputeOpen?: boolean } | null,
): { amount: number } | RefundRefusal {
  if (payment?.disputeOpen) {
    return {
      code: 'sale_disputed',
      message: "The sale's payment is disputed by the buyer's bank",
      detail: 'A disputed payment cannot be refunded until its dispute is closed',
    };
  }
  const available = payment
    ? refundableAmount(payment.captured, payment.refunded + (payment.chargedBack ?? 0), payment.pending)
    : 0;
  if (available === 0) return { code: 'nothing_to_refund', message: 'Nothing left to refund on this sale' };
  const amount = requested ?? available;
  if (amount > available) {
    return {
      code: 'refund_exceeds_captured',
      message: 'Refund exceeds what can still be refunded',
      detail: `At most ${available} cents can still be refunded`,
    };
  }
  return { amount };
}

/** A sale's status follows from how much of it has come back to the buyer. */
export function saleStatusAfterRefunds(paid: number, refunded: number): 'paid' | 'partially_refunded' | 'refunded' {
  if (refunded <= 0) return 'paid';
  return refunded >= paid ? 'refunded' : 'partially_refunded';
}

/** The gateway's transaction status for the same situation. */
export function transactionStatusAfterRefunds(
  captured: number,
  refunded: number,
): 'succeeded' | 'partial_refunded' | 'refunded' {
  if (refunded <= 0) return 'succeeded';
  return refunded >= captured ? 'refunded' : 'partial_refunded';
}

export type RefundVerdict = 'happened' | 'not_happened' | 'ambiguous';

/**
 * Whether a refund whose answer never came did happen, from the gateway's books alone. What the
 * gateway has refunded on the payment, less what our settled refunds account for, is what the
 * still-pending refunds took. Less than this refund's amount: it cannot have happened. More than
 * the other pending refunds could have taken: it must have. In between the amounts cannot tell
 * which refund it was.
 */
export function refundVerdict(books: {
  gatewayRefunded: number;
  recordedRefunded: number;
  amount: number;
  otherPending: number;
}): RefundVerdict {
  const unaccounted = books.gatewayRefunded - books.recordedRefunded;
  if (unaccounted < books.amount) return 'not_happened';
  if (unaccounted - books.otherPending >= books.amount) return 'happened';
  return 'ambiguous';
}

/** A refund made at the gateway (its panel) that our books do not hold yet: how much, and which of its refunds. */
export interface GatewayMadeRefund {
  amount: number;
  /** The gateway's refunds it is made of, newest first: the first is its key. */
  gatewayRefundIds: string[];
}

/**
 * What the gateway refunded on a payment that no refund of ours accounts for (decision 0068): its
 * refunded total, less what our settled refunds hold and what our pending ones may have taken (their
 * workflows will settle them), never more than is left of the capture. The gateway's newest refunds
 * that make up that amount name it; none is left unnamed when the gateway lists no refunds.
 */
export function gatewayMadeRefund(books: {
  gatewayRefunded: number;
  gatewayRefunds: readonly { id: string; amount: number }[];
  captured: number;
  recordedRefunded: number;
  pending: number;
}): GatewayMadeRefund | null {
  const left = Math.max(0, books.captured - books.recordedRefunded);
  const amount = Math.min(left, books.gatewayRefunded - books.recordedRefunded - books.pending);
  if (amount <= 0) return null;
  const gatewayRefundIds: string[] = [];
  let named = 0;
  for (const refund of [...books.gatewayRefunds].reverse()) {
    if (named >= amount) break;
    gatewayRefundIds.push(refund.id);
    named += refund.amount;
  }
  return { amount, gatewayRefundIds };
}

/**
 * The reason of the refund that gives back a payment of an already paid checkout (a pix or boleto a
 * bank paid after the buyer paid by card): recorded against the checkout's sale, which it leaves paid.
 */
export const DUPLICATE_PAYMENT_REASON = 'duplicate: paid after the checkout was already paid; refunded automatically';

/**
 * The reason of the refund that gives back a payment of a checkout that ended without a sale (decision
 * 0095): a pix or boleto the buyer gave up (or that the checkout outlived) paid by a bank anyway, found
 * when the checkout had expired or failed; or a capture whose sale could not be recorded. Recorded as a
 * refund of the payment alone (no sale), by the checkout's status then.
 */
export function unsoldPaymentRefundReason(checkoutStatus: CheckoutStatus): string {
  if (checkoutStatus === 'expired' || checkoutStatus === 'failed') {
    return `late_payment: checkout ${checkoutStatus} without a sale; refunded automatically`;
  }
  return 'unrecorded: the sale of this payment could not be recorded; refunded automatically';
}
