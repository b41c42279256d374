/**
 * The payment gateway as this engine sees it, by capability: card payments, payment documents (pix
 * and boleto), a card vault, and, where the gateway has it, recurring billing (buyers, recurrence
 * plans, gateway subscriptions and their invoices). An adapter implements the capabilities its
 * gateway offers and no others, so no call answers "unsupported"; the engine asks which it has
 * (gateway/capabilities.ts) instead of reading flags or vendor names.
 *
 * Every call that creates or moves money takes an idempotency key derived from a business identity
 * (the workflow id and the step, never an attempt number), and a repeated key returns the first
 * result: that is what lets activities retry without charging twice.
 */
import type { CardInput, CardToken } from './card.ts';
import type { LedgerRow } from '../domain/reconciliation.ts';
import type {
  GatewaySubscription,
  GatewaySubscriptionInput,
  RecurrencePlan,
  RecurrencePlanInput,
} from './recurrence.ts';

/** Declared with their schemas in card.ts and recurrence.ts; part of the port all the same. */
import type {
  BoletoDetails,
  BuyerInput,
  DeclineReason,
  GatewayChargeback,
  GatewayInvoice,
  GatewayTransaction,
  PaymentType,
  PixDetails,
  TransactionStatus,
} from '../contracts/gateway-records.ts';
import type {
  GatewayMandate,
  GatewayMandateCharge,
  GatewayMandateRefund,
  PixPayerPersona,
} from '../contracts/pix-automatico.ts';

/** Declared as plain data in contracts/gateway-records.ts, for the workflows; part of the port all the same. */
export type {
  BoletoDetails,
  BuyerInput,
  DeclineReason,
  GatewayChargeback,
  GatewayInvoice,
  GatewayTransaction,
  PaymentType,
  PixDetails,
  TransactionStatus,
};

export type { GatewayMandate, GatewayMandateCharge, GatewayMandateRefund, PixPayerPersona };

/** Pix Automático's part of the port, in its own file for its size; part of the port all the same. */
export type * from './port-pix-automatico.ts';

export type {
  CardInput,
  CardToken,
  GatewaySubscription,
  GatewaySubscriptionInput,
  RecurrencePlan,
  RecurrencePlanInput,
};

export interface Buyer extends BuyerInput {
  id: string;
}

/**
 * Whose card it is. A real gateway keeps a card with a buyer of its own (Mercado Pago: a customer
 * found or created by e-mail), so that later renewals can charge it; the simulator ignores it.
 */
export interface CardOwner {
  email: string | null;
  name: string | null;
}

/**
 * What a sale tells the gateway beside its amount, for its risk analysis and the buyer's statement
 * (Mercado Pago: statement_descriptor, additional_info and the device header, decision 0069). All
 * optional, never card data: a gateway that has no use for them ignores them (the simulator does).
 */
export interface SaleDetails {
  /** The seller's name, as the buyer's card statement should show it. */
  merchantName?: string | null;
  /** What was sold: one line per product. `unitPrice` in cents. */
  items?: { id: string; title: string; quantity: number; unitPrice: number; category?: string | null }[];
  payerPhone?: { areaCode: string; number: string } | null;
  /** The buyer's IP address, where the buyer is present. */
  buyerIp?: string | null;
  /** The device id the gateway's browser script made for this buyer (Mercado Pago: MP_DEVICE_SESSION_ID). */
  deviceSessionId?: string | null;
}

export interface CardChargeInput {
  reference: string;
  amount: number;
  currency: string;
  installments: number;
  noFeesInstallments: boolean;
  /** A token from tokenizeCard, or the raw card (tokenized on the way). */
  card: { token: string } | CardInput;
  buyerId?: string | null;
  /** False: authorize only (status pre_authorized); capture later. */
  capture: boolean;
  description?: string;
  /**
   * Who starts the charge: the buyer at a checkout (`buyer`, the default), or the merchant without
   * them, on a kept card (`merchant`: a renewal, an extra charge), which must be answered at once.
   */
  initiatedBy?: 'buyer' | 'merchant';
  sale?: SaleDetails;
  /**
   * The buyer paying with a card their browser just tokenized (the first charge of a card): who pays
   * (e-mail, name, tax id), which Mercado Pago asks of a payment with a card token (decision 0074).
   */
  payer?: BuyerInput | null;
  /**
   * What the gateway's browser script told of the card (Mercado Pago's `payment_method_id` and
   * `issuer_id`, looked up from the card's BIN); absent for a kept card, whose gateway record has them.
   */
  cardMethod?: CardMethod | null;
  /** A merchant-initiated charge of a subscription's kept card: which subscription and period it bills. */
  recurring?: RecurringCharge;
  /**
   * The kept card (our id of it) the buyer's browser minted `card.token` from, with the security code
   * the buyer typed again (MercadoPago.js `createCardToken({ cardId })`, decision 0078): the payment names
   * the card's customer as its payer, and the card's payment method and issuer.
   */
  keptCardId?: string;
}

/** The card's payment method and issuer as the gateway names them (Mercado Pago: `master`, `24`). */
export interface CardMethod {
  paymentMethodId: string;
  issuerId: string | null;
}

/**
 * The subscription a merchant-initiated charge bills (Mercado Pago's subscription messaging,
 * `point_of_interaction` of type SUBSCRIPTIONS): its id, the period's number and its billing date.
 */
export interface RecurringCharge {
  subscriptionId: string;
  /** The period billed, 1 being the first (the checkout's). */
  sequence: number;
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
  /** YYYY-MM-DD */
  billingDate: string;
}

export interface PixChargeInput {
  reference: string;
  amount: number;
  currency: string;
  buyer?: BuyerInput | null;
  expiresInSeconds: number;
  sale?: SaleDetails;
}

export interface BoletoChargeInput {
  reference: string;
  amount: number;
  currency: string;
  buyer: BuyerInput;
  /** YYYY-MM-DD */
  dueDate: string;
  sale?: SaleDetails;
}

export interface GatewayInvoiceInput {
  subscriptionId: string;
  amount: number;
  currency: string;
  description?: string | null;
  dueDate: string;
  expirationDate?: string | null;
  noFeesInstallments: boolean;
}

export class GatewayError extends Error {
  /** True when the same call may succeed later (timeouts, 5xx); false for a definite refusal. */
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'GatewayError';
    this.retryable = retryable;
  }
}

/**
 * A definite refusal to charge a kept card without its holder (the gateway would not mint or take its
 * token): no payment was made, and only the customer can mend it (the card again, or another).
 */
export class SavedCardRefused extends GatewayError {
  constructor(message: string) {
    super(message, false);
    this.name = 'SavedCardRefused';
  }
}

/**
 * A gateway's transactions, whatever paid them: void, refund, and look one up by its id or by the
 * idempotency key that made it. Every gateway has these.
 */
export interface Transactions {
  /** Voids a pre-authorization or a pending pix/boleto. */
  cancel(transactionId: string, idempotencyKey: string): Promise<GatewayTransaction>;
  /** Null when the gateway has no such transaction. */
  getTransaction(transactionId: string): Promise<GatewayTransaction | null>;
  /**
   * The transaction that a chargeCard, createPixCharge or createBoleto call made under this
   * idempotency key, as it stands now (a captured pre-authorization shows as succeeded); null when
   * the gateway never processed a call with this key. How a caller whose answer was lost learns
   * the truth before it tells the buyer anything or accepts another payment.
   */
  findTransactionByIdempotencyKey(idempotencyKey: string): Promise<GatewayTransaction | null>;
  /** Full or partial; the gateway refuses more than was captured. */
  refund(transactionId: string, amount: number, idempotencyKey: string): Promise<GatewayTransaction>;
}

/**
 * Card payments, where the gateway takes cards (the simulator, Mercado Pago; not Efí, decision 0097):
 * charge a card (1–12 installments, optionally pre-authorized) and capture it. Asked with
 * offersCardPayments, reached with cardPaymentsOf (gateway/capabilities.ts).
 */
export interface CardPayments {
  /** A declined card is a transaction with status failed and a decline reason, not an error. */
  chargeCard(input: CardChargeInput, idempotencyKey: string): Promise<GatewayTransaction>;
  capture(transactionId: string, amount: number | null, idempotencyKey: string): Promise<GatewayTransaction>;
}

/**
 * What a gateway needs to know of a boleto's payer beyond the name, e-mail and tax id every boleto
 * carries: `address` when it prints the payer's full address (postal code and state included) on the
 * boleto and refuses one without it, `full_name` when it names the payer by first and last name (both
 * Mercado Pago). The checkout asks the buyer for these before it issues the boleto
 * (domain/checkout-confirmation.ts, the one rule).
 */
export type BoletoPayerField = 'address' | 'full_name';

/** Payment documents: a pix charge (QR code and copy-paste code) and a boleto the buyer pays later. */
export interface PaymentDocuments {
  /** The payer's details this gateway's boleto requires (see BoletoPayerField); empty: none beyond the usual. */
  readonly boletoPayerRequires: readonly BoletoPayerField[];
  createPixCharge(input: PixChargeInput, idempotencyKey: string): Promise<GatewayTransaction>;
  createBoleto(input: BoletoChargeInput, idempotencyKey: string): Promise<GatewayTransaction>;
}

/**
 * A card vault: the card made chargeable now and at later renewals, by an id chargeCard takes. Part of
 * the card capability (offersCardPayments): a gateway has both or neither.
 */
export interface CardVault {
  /**
   * True when the token the buyer's browser makes is good for one payment only (Mercado Pago's): the
   * first payment is charged with it as it is, and the card kept afterwards (keepBrowserCard with the
   * same token), as the gateway's recurring-charges guide orders it. False when it is itself a kept
   * card (the simulator's; absent means false): it is kept before the charge, as any card (decision 0074).
   */
  readonly browserTokensSingleUse?: boolean;
  /**
   * The card data the buyer typed, made chargeable (now and at later renewals): the answer's id is
   * what chargeCard takes. Card data on our server puts the deployment in full PCI DSS scope: a
   * live gateway takes it only when the operator says so (ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE).
   */
  tokenizeCard(card: CardInput, idempotencyKey: string, owner?: CardOwner): Promise<CardToken>;
  /**
   * The card behind a token the buyer's browser made with the gateway's own script (the card data
   * never reached this engine), kept so that chargeCard can charge it now and at later renewals. A
   * real gateway's browser token is single-use, so the card is kept with its `owner` after the token's
   * first (approved) payment (browserTokensSingleUse); an unknown or expired token is refused (not retryable).
   */
  keepBrowserCard(browserToken: string, owner: CardOwner, idempotencyKey: string): Promise<CardToken>;
}

/** A window of time the gateway's ledger is read for: `from` inclusive, `to` exclusive. */
export interface LedgerWindow {
  from: Date;
  to: Date;
}

/**
 * The gateway's ledger (decision 0073): the money it moved in a window, one signed row per
 * movement (a payment's gross as released, its fee, refunds, dispute holds and reversals,
 * withholdings, payouts), keyed by the gateway's payment id and `external_reference`. What the
 * daily reconciliation compares our books with. A ledger the gateway is still preparing (Mercado
 * Pago builds its release report asynchronously) throws a retryable GatewayError.
 */
export interface GatewayLedger {
  ledger(window: LedgerWindow): Promise<LedgerRow[]>;
}

/**
 * A gateway whose card updater replaces kept cards (Mercado Pago's Card Updater, decision 0071): the
 * kept card as the gateway has it now, by our id of it; null when the gateway keeps no such card.
 */
export interface KeptCardLookup {
  keptCard(cardTokenId: string): Promise<CardToken | null>;
}

/**
 * A gateway that charges a kept card with the buyer present only with a token the buyer's browser
 * mints from the card and its security code, typed again (Mercado Pago: "a new capture of the card's
 * security code", decision 0078): the id the gateway's browser script names the kept card by
 * (MercadoPago.js `createCardToken({ cardId })`); null for an id that is not of such a card.
 */
export interface KeptCardBrowserTokens {
  keptCardBrowserId(cardTokenId: string): string | null;
}

/**
 * What every gateway this engine works with offers. Cards (CardPayments and CardVault) and recurring
 * billing are capabilities of their own, which an adapter has or lacks: ask with offersCardPayments
 * and offersRecurringBilling (gateway/capabilities.ts).
 */
export type PaymentGateway = Transactions & PaymentDocuments & GatewayLedger;

/** A gateway that takes cards: charges them and keeps them for later renewals. */
export type CardGateway = PaymentGateway & CardPayments & CardVault;

/**
 * Chargebacks (disputes) of the gateway's payments, where the gateway reports them (decision 0072):
 * read by the id its notice names, never believed from the notice itself.
 */
export interface Chargebacks {
  /** The chargeback as the gateway has it now; null when it has no such chargeback. */
  getChargeback(chargebackId: string): Promise<GatewayChargeback | null>;
}

/**
 * Recurring billing by the gateway: buyers, recurrence plans, subscriptions the gateway bills on its
 * own calendar, and their invoices (each cycle's, and extra charges on the subscription's card).
 */
export interface RecurringBilling {
  createBuyer(buyer: BuyerInput, idempotencyKey: string): Promise<Buyer>;
  createRecurrencePlan(input: RecurrencePlanInput, idempotencyKey: string): Promise<RecurrencePlan>;
  createSubscription(input: GatewaySubscriptionInput, idempotencyKey: string): Promise<GatewaySubscription>;
  cancelSubscription(subscriptionId: string, idempotencyKey: string): Promise<GatewaySubscription>;
  /**
   * Moves a gateway subscription to another recurrence plan: it bills `planId` from its next cycle
   * on, while a cycle already opened (an invoice with that `cycle` exists) keeps its amount. The new
   * plan must have the current one's currency, interval and interval count, since the cycles' dates
   * run on from the start date. An unknown subscription or plan, a canceled subscription or another
   * currency or period is refused (not retryable); the plan it already has returns it unchanged.
   */
  changeSubscriptionPlan(subscriptionId: string, planId: string, idempotencyKey: string): Promise<GatewaySubscription>;
  createInvoice(input: GatewayInvoiceInput, idempotencyKey: string): Promise<GatewayInvoice>;
  /** Voids an unpaid invoice so that it can no longer be paid; a paid one is refused (not retryable). */
  cancelInvoice(invoiceId: string, idempotencyKey: string): Promise<GatewayInvoice>;
  getInvoice(invoiceId: string): Promise<GatewayInvoice | null>;
  /** Every invoice of a gateway subscription (its recurrence's cycles and its extra charges), oldest first. */
  listSubscriptionInvoices(subscriptionId: string): Promise<GatewayInvoice[]>;
}

/**
 * A sandbox gateway's recurring billing (the simulator, directly or over its HTTP server): a live
 * gateway bills on its own calendar, a sandbox one also when a subscription's test clock says so.
 */
export interface SandboxRecurringBilling extends RecurringBilling {
  /**
   * The recurrence bills cycle `cycle` now, as on the cycle's due date or a retry day. A paid cycle
   * is returned as it is; one key per try.
   */
  billSandboxCycle(subscriptionId: string, cycle: number, idempotencyKey: string): Promise<GatewayInvoice>;
}

/**
 * A sandbox gateway's controls (the simulator's): what a buyer or time does to a payment outside our
 * API, for the sandbox routes and the simulated-gateway server's `/v1/_sandbox/…`.
 */
export interface SandboxControls {
  pay(transactionId: string): Promise<GatewayTransaction>;
  expire(transactionId: string): Promise<GatewayTransaction>;
  /** A card charge held for review (a test card's) ends its review, approved or declined. */
  endReview(transactionId: string): Promise<GatewayTransaction>;
  payInvoice(invoiceId: string): Promise<GatewayInvoice>;
  failInvoice(invoiceId: string): Promise<GatewayInvoice>;
  billSubscription(subscriptionId: string): Promise<GatewayInvoice>;
  billSandboxCycle(subscriptionId: string, cycle: number, idempotencyKey: string): Promise<GatewayInvoice>;
  /** The buyer's bank disputes a card payment (all that is left of it, or `amount` cents): a chargeback opens. */
  openChargeback(transactionId: string, amount?: number | null): Promise<GatewayChargeback>;
  /** The card network decides an open chargeback. */
  decideChargeback(chargebackId: string, outcome: 'won' | 'lost'): Promise<GatewayChargeback>;
  /** The issuer's card updater replaces a kept card (new last four digits, new expiry). */
  updateCard(
    cardTokenId: string,
    next: { last4: string; expirationMonth: string; expirationYear: string },
  ): Promise<CardToken>;
}

/** What the gateway posts to our callback endpoint when a payment changes state. */
export interface GatewayCallback {
  /** Unique per notification, so a repeated delivery is recognized. */
  id: string;
  type:
    | 'transaction.updated'
    | 'invoice.updated'
    | 'chargeback.updated'
    | 'card.updated'
    | 'mandate.updated'
    | 'mandate_charge.updated';
  transactionId?: string;
  invoiceId?: string;
  /** chargeback.updated: the chargeback whose state changed, read back with getChargeback (decision 0072). */
  chargebackId?: string;
  /** card.updated: the kept card the issuer's card updater replaced, and its replacement (keptCard). */
  cardId?: string;
  replacedBy?: string;
  /** mandate.updated / mandate_charge.updated: read back with getMandate / getMandateCharge. */
  mandateId?: string;
  mandateChargeId?: string;
  status: string;
  occurredAt: string;
}
