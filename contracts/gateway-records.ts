/**
 * The payment gateway's records as the workflows and activities hand them to each other (a
 * direct transaction's charge, an extra charge's invoice): plain data, declared here so a workflow
 * names them without importing the gateway layer. gateway/port.ts re-exports them as part of its port.
 */

import type { BuyerAddress } from '../domain/checkout.ts';
import type { DisputeStatus } from '../domain/disputes.ts';

/** What is kept of a card: never its number or CVV (gateway/card.ts declares its schema, `cardToken`). */
export interface StoredCard {
  id: string;
  brand: string;
  first4: string;
  last4: string;
  holderName: string;
  expirationMonth: string;
  expirationYear: string;
}

export type PaymentType = 'credit' | 'pix' | 'boleto';

/** The spec's transaction statuses (creation responses use the first six). */
export type TransactionStatus =
  | 'new'
  | 'pending'
  | 'pre_authorized'
  | 'succeeded'
  | 'failed'
  | 'canceled'
  | 'reversed'
  | 'refunded'
  | 'partial_refunded'
  | 'dispute'
  | 'charged_back';

export type DeclineReason =
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'do_not_honor'
  | 'fraud_suspected'
  /** The issuer asks for 3-D Secure authentication, which the payment did not carry. */
  | 'authentication_required'
  | 'invalid_card'
  | 'expired'
  | 'overdue';

export interface BuyerInput {
  email: string;
  name?: string | null;
  taxId?: string | null;
  /** Where the buyer lives, when known: a gateway may print it on a boleto (Mercado Pago requires it there). */
  address?: BuyerAddress | null;
}

export interface PixDetails {
  /** The copy-and-paste payload (BR Code). */
  qrCode: string;
  /** The same as a PNG image, as a data: URL. */
  qrCodeImage: string;
  expiresAt: string;
  /** The gateway's own page of this pix, where it has one (Mercado Pago's ticket_url). */
  url?: string;
}

export interface BoletoDetails {
  barcode: string;
  digitableLine: string;
  dueDate: string;
  url: string;
}

/** One refund as the gateway lists it on its payment: its own id, and the amount in cents. */
export interface GatewayRefund {
  id: string;
  amount: number;
}

/** Mercado Pago's `three_ds_info`: where the browser posts `creq` to show the issuer's challenge. */
export interface ThreeDsChallenge {
  url: string;
  creq: string;
}

export interface GatewayTransaction {
  id: string;
  /** Our reference (e.g. the checkout id) the transaction was created for. */
  reference: string;
  status: TransactionStatus;
  paymentType: PaymentType;
  /** What the buyer pays, interest included. */
  amount: number;
  /** What was asked before installment interest. */
  baseAmount: number;
  currency: string;
  installments: number;
  /** Each installment, in cents; they add up to `amount`. */
  installmentAmounts: number[];
  authorizationCode: string | null;
  declineReason: DeclineReason | null;
  card: StoredCard | null;
  pix: PixDetails | null;
  boleto: BoletoDetails | null;
  buyerId: string | null;
  /** Sequential reference number at the gateway. */
  transactionNumber: string;
  /**
   * What was captured, as the gateway's refunds are measured: the most that can be refunded. Mercado
   * Pago refunds its `transaction_amount`, the amount before the buyer's instalment interest
   * (`baseAmount`), and the simulator measures it the same way (decision 0079).
   */
  capturedAmount: number;
  /** What the gateway has refunded, in the same measure as capturedAmount. */
  refundedAmount: number;
  /**
   * The gateway's refunds that make up refundedAmount, oldest first, where the gateway lists them
   * (Mercado Pago's `refunds[]`): how a refund made outside the engine is recognised (decision 0068).
   */
  refunds?: GatewayRefund[];
  /**
   * A card payment waiting on the buyer's 3-D Secure challenge (Mercado Pago's `pending_challenge`):
   * the issuer's challenge page and the challenge request the buyer's browser posts to it.
   */
  threeDs?: ThreeDsChallenge | null;
  createdAt: string;
  confirmedAt: string | null;
  /**
   * When the gateway releases the payment's money to the merchant's balance, where it says (Mercado
   * Pago's `money_release_date`: 14 or 30 days after a card's capture, by the account's setting); its
   * ledger shows the payment that day (decision 0073). Unset: released at capture (the simulator).
   */
  releaseDate?: string | null;
}

export interface GatewayInvoice {
  id: string;
  subscriptionId: string;
  amount: number;
  currency: string;
  status: 'pending' | 'paid' | 'failed' | 'voided';
  dueDate: string;
  expirationDate: string | null;
  paidAt: string | null;
  createdAt: string;
  /** The charge of its last try (paid or failed); null while none was made. */
  transactionId: string | null;
  /**
   * Which period of the gateway's own recurrence it bills (0: the first charge on the subscription's
   * start date); null for an extra charge created with createInvoice.
   */
  cycle: number | null;
}

/** A dispute's state as the gateway reports it: open until the card network decides (decision 0072). */
export type GatewayDisputeStatus = DisputeStatus;

/** A chargeback (dispute) of one of the gateway's payments, as its adapter reads it. */
export interface GatewayChargeback {
  id: string;
  /** The gateway's id of the payment disputed. */
  transactionId: string;
  /** What the buyer disputes, in cents, measured as the payment's capturedAmount. */
  amount: number;
  currency: string;
  status: GatewayDisputeStatus;
}
