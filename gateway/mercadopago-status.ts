import { GatewayError, type DeclineReason, type PaymentType, type TransactionStatus } from './port.ts';

/**
 * Mercado Pago's payment `status` and `status_detail` onto our transaction status and decline
 * reason: the one table (https://www.mercadopago.com.br/developers/en/docs/checkout-api/response-handling/collection-results
 * and the payments API reference). A status this table does not know is an error, never a guess.
 */

export const MP_STATUSES: Readonly<Record<string, TransactionStatus>> = {
  pending: 'pending',
  approved: 'succeeded',
  authorized: 'pre_authorized',
  in_process: 'pending',
  in_mediation: 'dispute',
  rejected: 'failed',
  cancelled: 'canceled',
  refunded: 'refunded',
  charged_back: 'charged_back',
};

/** Why a card was refused, by `status_detail`. A rejection this table does not name is `card_declined`. */
export const MP_DECLINE_REASONS: Readonly<Record<string, DeclineReason>> = {
  cc_rejected_bad_filled_card_number: 'invalid_card',
  // The buyer typed the expiration date wrong: the card is not known to be expired.
  cc_rejected_bad_filled_date: 'invalid_card',
  cc_rejected_bad_filled_other: 'invalid_card',
  cc_rejected_bad_filled_security_code: 'incorrect_cvc',
  cc_rejected_blacklist: 'fraud_suspected',
  cc_rejected_high_risk: 'fraud_suspected',
  rejected_high_risk: 'fraud_suspected',
  cc_rejected_call_for_authorize: 'do_not_honor',
  cc_rejected_card_disabled: 'card_declined',
  cc_rejected_card_error: 'card_declined',
  cc_rejected_duplicated_payment: 'card_declined',
  cc_rejected_insufficient_amount: 'insufficient_funds',
  cc_amount_rate_limit_exceeded: 'insufficient_funds',
  cc_rejected_invalid_installments: 'card_declined',
  cc_rejected_max_attempts: 'card_declined',
  cc_rejected_other_reason: 'card_declined',
  // The issuer requires 3-D Secure: the buyer can pay again with it (a buyer-present payment offers it).
  cc_rejected_3ds_mandatory: 'authentication_required',
  cc_rejected_3ds_challenge: 'card_declined',
  bank_error: 'card_declined',
};

export interface MappedStatus {
  status: TransactionStatus;
  declineReason: DeclineReason | null;
}

/**
 * One payment's state. A partial refund keeps `approved` with `partially_refunded`; a pix or boleto
 * that lapsed is `cancelled`/`expired`, which we (as the simulator) call failed for `expired` (pix)
 * or `overdue` (boleto); a pending one cancelled by the buyer or the seller is canceled.
 */
export function mapPaymentStatus(status: string, detail: string | undefined, paymentType: PaymentType): MappedStatus {
  const mapped = MP_STATUSES[status];
  if (!mapped) throw new GatewayError(`Mercado Pago payment status "${status}" is not mapped`, false);
  if (status === 'approved' && detail === 'partially_refunded') {
    return { status: 'partial_refunded', declineReason: null };
  }
  if (status === 'cancelled' && detail === 'expired') {
    return { status: 'failed', declineReason: paymentType === 'boleto' ? 'overdue' : 'expired' };
  }
  if (status === 'rejected') {
    return { status: 'failed', declineReason: (detail ? MP_DECLINE_REASONS[detail] : undefined) ?? 'card_declined' };
  }
  return { status: mapped, declineReason: null };
}
