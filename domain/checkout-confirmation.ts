import { maxInstallments } from './checkout-pricing.ts';
import type { ConfirmPaymentMethod } from './checkout.ts';

/**
 * The spec's rules of a confirmation (confirm-sdk, transactions/direct), once: the API checks them on
 * the request before anything is tokenized, the workflow's Update validator on what reaches it, and
 * the confirmation's activity on the checkout as it is under its row lock (a customer's e-mail, name
 * and tax id may come from the checkout or its customer rather than the request).
 */
export interface ConfirmationRefusal {
  message: string;
  detail?: string;
}

export interface ConfirmationRequest {
  paymentMethod: ConfirmPaymentMethod;
  /** A card (or its token) came with the request. */
  hasCard: boolean;
  installments: number;
}

/** What the checkout's price allows; unknown (null) where only the request is at hand. */
export type ConfirmationPrice = { type: 'one_time' | 'recurring'; interval?: string | null } | null;

/** A card only for credit_card, and no more installments than the price allows. */
export function paymentRefusal(request: ConfirmationRequest, price: ConfirmationPrice): ConfirmationRefusal | null {
  if (request.paymentMethod !== 'credit_card') {
    return request.hasCard
      ? { message: 'card and card_token are only accepted when payment_method is credit_card' }
      : null;
  }
  if (!request.hasCard) return { message: 'card or card_token is required when payment_method is credit_card' };
  const max = price ? maxInstallments(price) : null;
  if (max !== null && request.installments > max) {
    return {
      message: 'Too many installments',
      detail: `This price accepts at most ${max} installment${max === 1 ? '' : 's'}`,
    };
  }
  return null;
}

/** What is known of the buyer: from the request, the checkout or its customer. */
export interface ConfirmationBuyer {
  hasEmail: boolean;
  hasName: boolean;
  hasTaxId: boolean;
  /** The checkout requires a billing address (require_billing_address) and none is known. */
  lacksRequiredAddress?: boolean;
  /** A billing address is known (sent, or on the checkout). */
  hasAddress?: boolean;
  /** The gateway prints the buyer's address on a boleto, so it needs one (Mercado Pago). */
  boletoNeedsAddress?: boolean;
}

/**
 * Every payment needs the buyer's e-mail (the receipt, the customer); a boleto their name and tax id, and
 * their address where the gateway prints it.
 */
export function buyerRefusal(
  paymentMethod: ConfirmPaymentMethod,
  buyer: ConfirmationBuyer,
): ConfirmationRefusal | null {
  if (!buyer.hasEmail) {
    return { message: 'customer_email is required', detail: 'The checkout has no customer yet: send customer_email' };
  }
  if (buyer.lacksRequiredAddress) {
    return { message: 'customer_billing_address is required', detail: 'This checkout requires a billing address' };
  }
  if (paymentMethod === 'boleto') {
    if (!buyer.hasName) return { message: 'customer_name is required for boleto' };
    if (!buyer.hasTaxId) return { message: 'customer_tax_id is required for boleto' };
    if (buyer.boletoNeedsAddress && !buyer.hasAddress) {
      return {
        message: 'customer_billing_address is required for boleto',
        detail: "The gateway prints the buyer's address on the boleto",
      };
    }
  }
  return null;
}
