import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PaymentSummary } from '../domain/checkout.ts';
import type { MandateCycle } from './pix-automatico.ts';
import {
  type DunningExhaustedStatus,
  type RecurrenceBilling,
  type SubscriptionChange,
  type SubscriptionAction,
  type SubscriptionStatus,
} from '../domain/subscriptions.ts';

export { subscriptionWorkflowId } from '../domain/subscriptions.ts';

/**
 * What the subscription workflow (workflows/subscription.ts, with its gateway-billed half
 * workflows/subscription-gateway.ts) is called by and calls: its input, the state one run hands the
 * next, the messages the API sends, and the activities it runs (SubscriptionActivities).
 */

/** What one run hands the next (continue-as-new once per period): the subscription's durable state. */
export interface SubscriptionRunState {
  status: SubscriptionStatus;
  /** The period paid last (0: in the trial); the next charge is for periodNumber + 1. */
  periodNumber: number;
  /** When the current period ends (ISO): the next renewal is due then. */
  periodEnd: string;
  cancelAtPeriodEnd: boolean;
  /** Who charges the periods: this workflow (manual, or through a Pix Automático mandate) or the gateway's own recurrence. */
  billing: RecurrenceBilling;
  /** Manual renewals charge the saved card; without one, renewal checkouts pay. */
  hasCard: boolean;
  /** The try of the next charge of period periodNumber + 1 (1: the renewal itself; more: dunning). */
  tryNumber: number;
  /** When the period's first try was refused (ISO); dunning retries are counted from it. */
  firstFailureAt: string | null;
  retryDays: number[];
  exhaustedStatus: DunningExhaustedStatus;
  /** Gateway billing: the charge of the refused try recorded last, so a try is recorded once. */
  lastGatewayCharge?: string | null;
  /** How long after periodEnd the renewal is tried (the deployment's renewal spread); absent: 0. */
  renewalDelayMs?: number;
  /** Sandbox test clock: how far this subscription's time runs ahead of real time (ms). */
  clockOffsetMs?: number;
  /** Sandbox test clock: the time it was moved to, which the workflow reaches step by step (ISO). */
  clockTarget?: string | null;
  /**
   * A mandate asked of the payer was approved (decision 0098, the mandateApproved signal): a manual
   * subscription bills its next period through it once that period's charge can still be sent in time.
   */
  mandateApproved?: boolean;
}

export interface SubscriptionWorkflowInput {
  subscriptionId: string;
  /** Absent on the first run: the run reads the subscription. */
  state?: SubscriptionRunState;
}

/** A merchant's change; answers with the subscription as it was written. */
export const changeSubscriptionUpdate = defineUpdate<SubscriptionRecord, [SubscriptionAction]>('changeSubscription');
/**
 * Sandbox test clock: moves this subscription's time forward to `to`; renewals, retries, trial ends
 * and deadlines due by then happen at once, as the workflow works through them. Answers the new time.
 */
export const advanceClockUpdate = defineUpdate<{ clock: string }, [{ to: string }]>('advanceClock');
export const INVALID_CLOCK = 'InvalidClock';

/** A merchant's plan change (another recurring price); answers with the subscription as written. */
export const changePriceUpdate = defineUpdate<SubscriptionRecord, [{ priceId: string }]>('changePrice');
/** A merchant's metadata, replaced whole; answers with the subscription as written. */
export const changeMetadataUpdate = defineUpdate<SubscriptionRecord, [{ metadata: Record<string, unknown> }]>(
  'changeMetadata',
);
/**
 * The customer's new card for the renewals (the portal): the token its browser's gateway script minted,
 * kept with the gateway by the workflow's activity; answers with the subscription as written.
 */
export const replaceCardUpdate = defineUpdate<SubscriptionRecord, [{ browserToken: string }]>('replaceCard');
/**
 * The customer revokes its Pix Automático authorization (the portal): the workflow, the subscription's
 * only writer, cancels the mandate at the gateway as the receiver and records it with its event
 * (activities/mandate-cycles.ts cancelMandate), between its own steps. The subscription itself is
 * unchanged: its next period finds the mandate ended and is refused (mandate_not_active). Answers when done.
 */
export const revokeMandateUpdate = defineUpdate<{ revoked: true }, []>('revokeMandate');
/** revokeMandateUpdate's refusal: the subscription is not billed by Pix Automático. */
export const NOT_PIX_AUTOMATICO = 'NotPixAutomatico';
export const subscriptionStateQuery = defineQuery<SubscriptionRunState>('subscriptionState');
/**
 * A renewal or upgrade checkout was paid (workflows/checkout-run.ts, through the activity of
 * activities/subscription-sale-update.ts; the Update's id is the checkout's): the subscription's
 * workflow, its only writer, records what the sale moves between its own steps, or refuses it (the
 * period is paid, the subscription ended), and answers with the verdict.
 */
export const checkoutPaidUpdate = defineUpdate<CheckoutSaleVerdict, [CheckoutPaidNotice]>('checkoutPaid');

export interface CheckoutPaidNotice {
  checkoutId: string;
  /** The checkout's payment (null when it cost nothing). */
  payment: PaymentSummary | null;
  /** An upgrade: the card the buyer paid with (renewals charge it from now on), and when the new period starts. */
  cardTokenId: string | null;
  periodStart: string;
}

/** What the subscription workflow did with a checkout's sale. */
export type CheckoutSaleVerdict = { accepted: true } | { accepted: false; reason: string };
/** The gateway notified a change of one of this subscription's invoices: the workflow asks the gateway. */
export const gatewayInvoiceSignal = defineSignal('gatewayInvoice');
/** The gateway notified a change of this subscription's mandate or of a period's charge through it: the workflow asks the gateway. */
export const mandateNoticeSignal = defineSignal('mandateNotice');
/** The payer approved a mandate the merchant asked for (workflows/mandate.ts): the subscription adopts it. */
export const mandateApprovedSignal = defineSignal('mandateApproved');

/**
 * A lost dispute took back a payment of this subscription (decision 0072): the merchant's
 * chargeback_subscription_action says what follows, `past_due` or `cancel` (ended now).
 */
export const chargedBackSignal = defineSignal<[{ action: 'past_due' | 'cancel' }]>('chargedBack');

/** PaymentIssue of a run whose gateway has not billed a period past the grace. */
export const MISSING_RENEWAL = 'gateway_renewal_missing';
/** PaymentIssue of a run whose raced renewal the gateway refused to give back: an operator refunds it. */
export const RENEWAL_REFUND_REFUSED = 'renewal_refund_refused';

export interface SubscriptionRecord {
  id: string;
  organization_id: string;
  status: SubscriptionStatus;
  customer_id: string;
  product_id: string;
  price_id: string;
  checkout_id: string | null;
  recurrence_billing: RecurrenceBilling;
  gateway_subscription_id: string | null;
  amount: number;
  subtotal_amount: number;
  currency: string;
  discount_id: string | null;
  current_period_start: string;
  current_period_end: string;
  period_number: number;
  trial_end: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  ended_at: string | null;
  created_at: string;
  modified_at: string | null;
  workflow_id: string;
  metadata: Record<string, unknown>;
}

/** What the workflow needs to run a subscription (read when a run starts without carried state). */
export interface SubscriptionPlan {
  organizationId: string;
  status: SubscriptionStatus;
  recurrenceBilling: RecurrenceBilling;
  periodNumber: number;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
  hasCard: boolean;
  /** The organization's dunning settings (subscription_settings), defaults filled in. */
  retryDays: number[];
  exhaustedStatus: DunningExhaustedStatus;
  /** How long after its period's end the subscription's renewal is tried (RENEWAL_SPREAD_SECONDS). */
  renewalDelayMs: number;
}

export interface RenewalCharge {
  subscriptionId: string;
  period: number;
  tryNumber: number;
}

export interface RenewalOutcome {
  amount: number;
  currency: string;
  /** Null for a period that costs nothing (a 100 % discount): nothing was sent to the gateway. */
  payment: PaymentSummary | null;
  /**
   * What the charge took from the subscription's balance (a plan change's credit or amount owed):
   * the balance moves by it when the period is entered. The period's own price is amount + this.
   */
  balanceDelta?: number;
  /**
   * The try failed with no payment made (the gateway refused the call itself, or no card is kept):
   * why, a decline reason dunning takes as any other (domain/failures.ts).
   */
  refusal?: string;
}

export interface PriceChange {
  subscriptionId: string;
  priceId: string;
  /** The workflow's instant of the change: what is left of the period is counted from it. */
  at: string;
}

export interface MetadataChange {
  subscriptionId: string;
  metadata: Record<string, unknown>;
  at: string;
}

/** A renewal or upgrade checkout's sale as its subscription recorded it: where the subscription now stands. */
export type CheckoutSaleRecord =
  | { refused: string }
  | {
      refused?: undefined;
      status: SubscriptionStatus;
      periodNumber: number;
      periodEnd: string;
      hasCard: boolean;
      cancelAtPeriodEnd: boolean;
    };

/** What the gateway did about one period. */
export interface GatewayPeriodOutcome {
  /** open: not billed yet, or its invoice still pending. */
  state: 'paid' | 'failed' | 'open';
  amount: number;
  currency: string;
  /** The charge of the invoice's last try (paid or refused); null while open. */
  payment: PaymentSummary | null;
}

/** The subscription workflow as its starters see it (typed starts, continue-as-new). */
export type SubscriptionWorkflow = (input: SubscriptionWorkflowInput) => Promise<SubscriptionStatus>;

/** The activities the subscription workflow runs (activities/subscription*.ts, gateway-renewals.ts, renewal-checkouts.ts). */
export interface SubscriptionActivities {
  loadSubscription(subscriptionId: string): Promise<SubscriptionPlan>;
  chargeRenewal(input: RenewalCharge): Promise<RenewalOutcome>;
  refundRenewal(input: RenewalCharge & { payment: PaymentSummary }): Promise<PaymentSummary>;
  recordRenewal(
    input: RenewalCharge & RenewalOutcome & { at: string; enter?: boolean },
  ): Promise<{ status: SubscriptionStatus; periodEnd: string }>;
  recordRenewalFailure(
    input: RenewalCharge & RenewalOutcome & { declineReason: string; at: string },
  ): Promise<SubscriptionStatus>;
  recordRenewalRefunded(input: RenewalCharge & { payment: PaymentSummary }): Promise<void>;
  recordCheckoutSale(input: CheckoutPaidNotice & { subscriptionId: string; at: string }): Promise<CheckoutSaleRecord>;
  changeSubscription(input: {
    subscriptionId: string;
    change: Extract<
      SubscriptionChange,
      'dunning_exhausted' | 'period_ended_canceled' | 'revoked' | 'payment_due' | 'charged_back'
    >;
    exhaustedStatus?: DunningExhaustedStatus;
    at: string;
  }): Promise<SubscriptionRecord>;
  setCancelAtPeriodEnd(input: { subscriptionId: string; cancel: boolean; at: string }): Promise<SubscriptionRecord>;
  changePrice(input: PriceChange): Promise<SubscriptionRecord>;
  replaceSubscriptionMetadata(input: MetadataChange): Promise<SubscriptionRecord>;
  replaceCard(input: { subscriptionId: string; browserToken: string; at: string }): Promise<SubscriptionRecord>;
  reconcileGatewayPeriod(input: { subscriptionId: string; period: number }): Promise<GatewayPeriodOutcome>;
  settleGatewayBalance(input: {
    subscriptionId: string;
    period: number;
    payment: PaymentSummary;
    at: string;
  }): Promise<{ settled: number }>;
  cancelGatewaySubscription(subscriptionId: string): Promise<void>;
  pendingInvoiceIds(subscriptionId: string): Promise<string[]>;
  billSandboxPeriod(input: { subscriptionId: string; period: number; tryNumber: number }): Promise<{ billed: boolean }>;
  /** Pix Automático (decision 0096): sends the period's charge through the subscription's mandate, once. */
  sendMandateCharge(input: { subscriptionId: string; period: number; dueDate: string }): Promise<MandateCycle>;
  /** The period's charge as the gateway has it now (a sandbox's payer's bank settles what is due by `asOf` first). */
  readMandateCharge(input: { subscriptionId: string; period: number; asOf: string }): Promise<MandateCycle>;
  /** Asks for the period's `retry`-th later-day retry (1–3), settling on `settlementDate`. */
  retryMandateCharge(input: {
    subscriptionId: string;
    period: number;
    retry: number;
    settlementDate: string;
  }): Promise<MandateCycle>;
  /** A new Pix Automático subscription adopts the mandate its checkout's pix authorized (journey 3), once. */
  adoptCheckoutMandate(subscriptionId: string): Promise<void>;
  /** A notice said the subscription's mandate moved: its state as the gateway has it now, written. */
  syncSubscriptionMandate(subscriptionId: string): Promise<void>;
  /** The subscription ended: its mandate is cancelled by the receiver, so the payer's bank takes no more charges. */
  cancelMandate(subscriptionId: string): Promise<void>;
  /**
   * A manual subscription adopts its approved mandate (decision 0098) for the period due `dueDate`:
   * `switched` (recurrence_billing pix_automatico, with subscription.updated), `later` (the mandate
   * starts after that date), or `none` (no approved mandate now, or the subscription is not manual).
   */
  adoptApprovedMandate(input: {
    subscriptionId: string;
    dueDate: string;
    at: string;
  }): Promise<'switched' | 'later' | 'none'>;
  openRenewalCheckout(input: {
    subscriptionId: string;
    period: number;
    expiresAt: string;
  }): Promise<{ checkoutId: string } | null>;
}
