import type { RecurrenceBilling } from '../domain/subscriptions.ts';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import {
  CHECKOUT_NOT_OPEN,
  CONFIRMATION_INVALID,
  DISCOUNT_REJECTED,
  type BuyerAddress,
  type BrowserCardToken,
  type BuyerDevice,
  type CheckoutStatus,
  type ConfirmCardToken,
  type ConfirmCheckoutInput,
  type ConfirmCheckoutResult,
  type PaymentSummary,
  type PendingPaymentKind,
} from '../domain/checkout.ts';
import type { PeriodInterval } from '../domain/periods.ts';
import type { BuyerInput } from './gateway-records.ts';
import type { CheckoutPaidNotice, CheckoutSaleVerdict } from './subscription.ts';

/**
 * What the checkout workflow (workflows/checkout.ts) is called by and calls: its id, input and state,
 * its Update, signal and query, and the activities it runs (CheckoutActivities; their
 * retry policies are the workflow's, in workflows/checkout-activity-proxies.ts).
 */

/** Workflow id of a checkout: one run per checkout, started when the checkout is created. */
export const checkoutWorkflowId = (checkoutId: string) => `checkout:${checkoutId}`;

export interface CheckoutWorkflowInput {
  checkoutId: string;
  organizationId: string;
  /**
   * Set by whoever starts the workflow of a checkout it has just opened: open until then. Without it
   * the workflow reads the checkout first (one step more before a confirmation can be taken).
   */
  openUntil?: string;
}

export interface PaymentUpdate {
  transactionId: string;
  status: string;
}

export interface CheckoutState {
  status: CheckoutStatus;
  /** Confirmations refused so far (declines and payment errors); MAX_DECLINED_CONFIRMATIONS ends the checkout. */
  declined: number;
  confirming: boolean;
  /** A payment call got no answer and the gateway has not yet said what became of it. */
  processing: boolean;
  declineReason: string | null;
  pendingTransactionId: string | null;
  customerId: string | null;
  subscriptionId: string | null;
}

/** The checkout workflow as its starters see it (the API, the sweep). */
export type CheckoutWorkflow = (input: CheckoutWorkflowInput) => Promise<{ status: CheckoutStatus }>;

export const confirmCheckoutUpdate = defineUpdate<ConfirmCheckoutResult, [ConfirmCheckoutInput]>('confirmCheckout');
export const paymentUpdatedSignal = defineSignal<[PaymentUpdate]>('paymentUpdated');
export const checkoutStateQuery = defineQuery<CheckoutState>('checkoutState');

export const CONFIRMATION_REFUSALS = [CHECKOUT_NOT_OPEN, CONFIRMATION_INVALID, DISCOUNT_REJECTED];
/** Integrity failures of the recording: permanent, so the capture is given back instead of retried. */
export const RECORDING_REFUSALS = ['CheckoutNotFound', 'MissingCustomerEmail', 'RecordingRejected'];

/** What a confirmation fixed: the amount to charge and everything the recording will need. */
export interface PreparedConfirmation {
  amount: number;
  currency: string;
  noFeesInstallments: boolean;
  expiresAt: string;
  /** The address is absent in runs recorded before the boleto carried it. */
  buyer: { email: string; name: string | null; taxId: string | null; address?: BuyerAddress | null };
  priceId: string;
  /** A recurring price's interval and the checkout's trial; null for a one-time price. */
  recurring: {
    interval: PeriodInterval;
    intervalCount: number;
    trial: { interval: PeriodInterval; count: number } | null;
    billing: RecurrenceBilling;
  } | null;
  /** A renewal checkout: the subscription and the period it pays (no new subscription is made). */
  renewal?: { subscriptionId: string; period: number } | null;
  /** An upgrade checkout: the subscription that moves to its price (domain/upgrades.ts). */
  upgrade?: { subscriptionId: string } | null;
  /**
   * The customer the checkout was opened with (or given by the merchant since), which the confirmation's
   * answer shows until a sale names its own. Absent in runs recorded before it was carried.
   */
  customerId?: string | null;
  /**
   * The confirmation's number, carried by its payment call's gateway key: counted on the checkout's
   * row, so a run started again never reuses a number. Absent in runs recorded before it was stored.
   */
  slot?: number;
}

/** The subscription a renewal's or an upgrade's checkout pays into; null for any other checkout. */
export const paidSubscriptionId = (p: PreparedConfirmation): string | null =>
  p.renewal?.subscriptionId ?? p.upgrade?.subscriptionId ?? null;

export interface RecordSaleInput {
  checkoutId: string;
  /** The captured (or paid) payment; null for a checkout whose total is zero. */
  payment: PaymentSummary | null;
  /** The first period the workflow chose (domain/checkout.ts firstSubscriptionPeriod); null for a one-time price. */
  subscription: {
    status: 'active' | 'trialing';
    periodStart: string;
    periodEnd: string;
    trialEnd: string | null;
    gatewaySubscriptionId: string | null;
    /** The card the buyer paid with, which manual renewals charge; null for pix and boleto. */
    cardTokenId?: string | null;
  } | null;
}

export interface RecordedSale {
  customerId: string;
  subscriptionId: string | null;
  saleId: string;
}

/**
 * A pix or boleto a checkout issued and still waits for, or a card it waits on while the gateway reviews
 * it, as a run started again picks it up.
 */
export interface IssuedPendingPayment {
  transactionId: string;
  kind: PendingPaymentKind | 'credit_card';
  /** Until when it can be paid (ISO), as the gateway counts it; a card: the end of the wait for its review. */
  payBy: string;
  /** A card under review: the card and installments it was charged with (absent for a pix or boleto). */
  card?: ConfirmCardToken | null;
  installments?: number;
}

/** The card charge of a confirmation's payment slot, for the amount the confirmation fixed. */
export interface CheckoutCardCharge {
  checkoutId: string;
  slot: number;
  amount: number;
  currency: string;
  installments: number;
  noFeesInstallments: boolean;
  cardTokenId: string;
  /** The buyer's IP address and device id, for the gateway's risk analysis (decision 0069). */
  buyerDevice?: BuyerDevice;
  /** `cardTokenId` is the browser's single-use token: charged as it is, the card kept afterwards (decision 0074). */
  browserCard?: BrowserCardToken;
}

/** The pix or boleto a confirmation's payment slot issues. */
export interface PendingPaymentIssue {
  checkoutId: string;
  organizationId: string;
  slot: number;
  kind: PendingPaymentKind;
  amount: number;
  currency: string;
  buyer: BuyerInput;
  expiresAt: string;
  buyerDevice?: BuyerDevice;
}

/** The activities the checkout workflow runs (activities/checkout-*.ts implement them). */
export interface CheckoutActivities {
  loadCheckout(
    checkoutId: string,
  ): Promise<{ status: CheckoutStatus; expiresAt: string; declineReason: string | null } | null>;
  prepareConfirmation(
    checkoutId: string,
    request: ConfirmCheckoutInput,
    leastSlot?: number,
  ): Promise<PreparedConfirmation>;
  expireCheckout(checkoutId: string): Promise<boolean>;
  reopenCheckout(checkoutId: string, reason: string, payment: PaymentSummary | null): Promise<void>;
  failCheckout(checkoutId: string, reason: string, payment: PaymentSummary | null): Promise<void>;
  chargeCard(input: CheckoutCardCharge): Promise<PaymentSummary>;
  /** A card approved after its review, kept as one approved at once is (decision 0074); null: not kept. */
  keepReviewedCard(input: Pick<CheckoutCardCharge, 'checkoutId' | 'slot' | 'cardTokenId'>): Promise<string | null>;
  /** With the pix's issue: a Pix Automático checkout's pix is found under its mandate's key (journey 3). */
  findPayment(idempotencyKey: string, issue?: PendingPaymentIssue): Promise<PaymentSummary | null>;
  issuePendingPayment(input: PendingPaymentIssue): Promise<{ payment: PaymentSummary; payBy: string }>;
  syncPayment(gatewayTransactionId: string): Promise<PaymentSummary>;
  cancelPendingPayment(checkoutId: string, gatewayTransactionId: string): Promise<PaymentSummary>;
  refundUnrecordedCapture(checkoutId: string, payment: PaymentSummary): Promise<PaymentSummary>;
  createGatewaySubscription(input: {
    checkoutId: string;
    priceId: string;
    cardTokenId: string;
    buyer: BuyerInput;
    startDate: string;
  }): Promise<string | null>;
  recordSale(input: RecordSaleInput): Promise<RecordedSale>;
  /** A renewal's or upgrade's sale put to its subscription's workflow (checkoutPaidUpdate): its verdict. */
  putSaleToSubscription(input: CheckoutPaidNotice & { subscriptionId: string }): Promise<CheckoutSaleVerdict>;
  paymentInFlight(checkoutId: string): Promise<ConfirmCheckoutInput | null>;
  issuedPendingPayment(checkoutId: string): Promise<IssuedPendingPayment | null>;
}
