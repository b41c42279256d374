import { ApplicationFailure, condition } from '@temporalio/workflow';
import {
  CHECKOUT_NOT_OPEN,
  METHOD_CHANGED,
  MAX_DECLINED_CONFIRMATIONS,
  paymentKey,
  requiresCharge,
  TOO_MANY_ATTEMPTS,
  type ConfirmCheckoutInput,
  type ConfirmCheckoutResult,
  type GatewayPaymentData,
  type PaymentSummary,
} from '../domain/checkout.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import { PIX_EXPIRED, pixRenewable } from '../domain/pending-payments.ts';
import { CARD_GIVEN_UP_WATCH_MS, REVIEW_EXPIRED } from '../domain/card-review.ts';
import type { CheckoutState, CheckoutWorkflowInput, PendingPaymentIssue } from '../contracts/checkout.ts';
import { confirmationView } from './checkout-answer.ts';
import {
  DEADLINE_SLACK_MS,
  isFailure,
  localPayments,
  payments,
  records,
  untilAnswered,
  type Attempt,
} from './checkout-activity-proxies.ts';
import { reopenForNewPix, type AbandonedPayment } from './checkout-aftermath.ts';
import type { LostPayment, PendingPayment } from './checkout-resume.ts';
import { recordCheckoutSale, type SaleRun } from './checkout-sale.ts';

type PaymentOutcome = { payment: PaymentSummary; payBy: string | null };

/**
 * One run of a checkout's workflow (workflows/checkout.ts reads its life top to bottom): its state and
 * the steps of a confirmation, each a method (the sale's in workflows/checkout-sale.ts). Everything here is
 * workflow code: deterministic, and every side effect an activity.
 */
export class CheckoutRun implements SaleRun {
  readonly state: CheckoutState = {
    status: 'open',
    declined: 0,
    confirming: false,
    processing: false,
    declineReason: null,
    pendingTransactionId: null,
    customerId: null,
    subscriptionId: null,
  };
  /** The checkout's status and expiry are known (its confirmations wait for this). */
  loaded = false;
  /** The payment slots used: each confirmation's gateway calls are keyed by its own. */
  private slots = 0;
  /** A payment call whose answer was lost: nothing else happens until the gateway says what it did. */
  unresolved: Attempt | null = null;
  /** The pix or boleto issued, or the card under review, and waited for. */
  pending: PendingPayment | null = null;
  /** The buyer is moving from the pending payment to another try: the wait for the pending payment gives way. */
  private switching = false;
  /** The wait for the pending payment woke and is settling it: no method change meanwhile. */
  settling = false;
  /** Pix/boleto/cards under review given up: one paid anyway is refunded (never money without a sale). */
  readonly abandoned: AbandonedPayment[] = [];
  /** Transactions the gateway told us about; kept even when the notice beats the pix/boleto's own answer. */
  readonly notices: string[] = [];
  /** Payment calls the gateway said it never processed; each is checked again before the run ends. */
  readonly doubtful: Attempt[] = [];
  recordedPaymentId: string | null = null;
  /** When the checkout expires (epoch ms; set once loaded): an expired pix reopens it only with time left. */
  expiresAt = 0;

  private readonly input: CheckoutWorkflowInput;

  constructor(input: CheckoutWorkflowInput) {
    this.input = input;
  }

  get checkoutId() {
    return this.input.checkoutId;
  }

  get organizationId() {
    return this.input.organizationId;
  }

  /** A confirmation (the Update): fixes the amount, pays, and records or declines. */
  async confirm(request: ConfirmCheckoutInput): Promise<ConfirmCheckoutResult> {
    const { state } = this;
    const prepared = await records.prepareConfirmation(this.checkoutId, request, this.slots + 1);
    state.status = 'confirmed';
    state.declineReason = null;
    this.slots = prepared.slot ?? this.slots + 1;
    const attempt: Attempt = { request, prepared, slot: this.slots };
    if (!requiresCharge(prepared.amount)) return this.recordSale(attempt, null);
    let outcome: PaymentOutcome | null;
    try {
      outcome = await this.pay(attempt, localPayments);
    } catch (err) {
      if (isFailure(err, GATEWAY_REFUSAL)) return this.decline(attempt, 'processing_error', null);
      // No answer: the gateway may or may not have acted. Nothing else happens until it says which,
      // asked by activities: their answers are in the history, so a call it says it never processed
      // stays known (and is checked again at the end) whatever becomes of this workflow task.
      this.unresolved = attempt;
      state.processing = true;
      try {
        outcome = await this.resolve(attempt, payments);
      } catch {
        return { outcome: 'processing', checkout: this.view(attempt, null), payment: null };
      }
      this.unresolved = null;
      state.processing = false;
    }
    return outcome ? this.settle(attempt, outcome) : this.neverProcessed(attempt);
  }

  /** The lost answer, asked again until the gateway answers (the main loop's step). */
  async resolveUnanswered(): Promise<void> {
    const a = this.unresolved!;
    const outcome = await this.resolve(a, untilAnswered);
    this.unresolved = null;
    this.state.processing = false;
    await (outcome ? this.settle(a, outcome) : this.neverProcessed(a));
    // The key answers the card as it was first charged: the review may have ended since, unheard by this run.
    if (this.pending?.kind === 'credit_card') this.notices.push(this.pending.transactionId);
  }

  /** The gateway says the call never reached it: the buyer may try again; the key is checked again at the end. */
  private neverProcessed(a: Attempt): Promise<ConfirmCheckoutResult> {
    this.doubtful.push(a);
    return this.decline(a, 'processing_error', null);
  }

  /** The slot's payment call: a card charge, or a pix/boleto issued. */
  private async pay(a: Attempt, via: typeof payments): Promise<PaymentOutcome> {
    const { request, prepared, slot } = a;
    if (request.paymentMethod === 'credit_card') {
      const payment = await via.chargeCard({
        checkoutId: this.checkoutId,
        slot,
        amount: prepared.amount,
        currency: prepared.currency,
        installments: request.installments,
        noFeesInstallments: prepared.noFeesInstallments,
        cardTokenId: request.card!.id,
        ...(request.buyerDevice ? { buyerDevice: request.buyerDevice } : {}),
        ...(request.card!.browser ? { browserCard: request.card!.browser } : {}),
      });
      return { payment, payBy: null };
    }
    return via.issuePendingPayment(this.pendingIssue(a));
  }

  /** The pix or boleto a confirmation issues (a card's attempt has none). */
  private pendingIssue({ request, prepared, slot }: Attempt): PendingPaymentIssue {
    return {
      checkoutId: this.checkoutId,
      organizationId: this.input.organizationId,
      slot,
      kind: request.paymentMethod as PendingPaymentIssue['kind'],
      amount: prepared.amount,
      currency: prepared.currency,
      buyer: prepared.buyer,
      expiresAt: prepared.expiresAt,
      ...(request.buyerDevice ? { buyerDevice: request.buyerDevice } : {}),
    };
  }

  /**
   * What became of a call that got no answer: null when the gateway never processed it; otherwise
   * the same call again, whose key returns what was done (and finishes a capture left half-way).
   */
  private async resolve(a: Attempt, via: typeof payments): Promise<PaymentOutcome | null> {
    const key = paymentKey(this.checkoutId, a.request.paymentMethod, a.slot);
    // A pix is looked up with its issue: a Pix Automático checkout's is found under its mandate's key.
    const found = await (a.request.paymentMethod === 'credit_card'
      ? via.findPayment(key)
      : via.findPayment(key, this.pendingIssue(a)));
    return found ? this.pay(a, via) : null;
  }

  private async settle(a: Attempt, outcome: PaymentOutcome): Promise<ConfirmCheckoutResult> {
    const { payment, payBy } = outcome;
    // A pix/boleto issued, or a card under review (decision 0070): waited for, never taken for a refusal.
    // (A pending card without its review deadline is a run recorded before: it declined it, and replays so.)
    const until = payBy ?? (payment.status === 'pending' ? payment.paymentData.review?.until : undefined);
    if (until !== undefined) {
      const kind = a.request.paymentMethod;
      this.pending = { attempt: a, transactionId: payment.id, kind, payBy: Date.parse(until) };
      this.state.pendingTransactionId = payment.id;
      return { outcome: 'pending' as const, checkout: this.view(a, payment.paymentData), payment };
    }
    if (payment.status === 'succeeded') return this.recordSale(a, payment);
    return this.decline(a, payment.declineReason ?? 'card_declined', payment);
  }

  /** A refused payment: open again for another try, or failed once the attempts are used up. */
  private async decline(a: Attempt, reason: string, payment: PaymentSummary | null): Promise<ConfirmCheckoutResult> {
    const { state } = this;
    state.declined += 1;
    if (state.declined >= MAX_DECLINED_CONFIRMATIONS) {
      await records.failCheckout(this.checkoutId, TOO_MANY_ATTEMPTS, payment);
      state.status = 'failed';
      state.declineReason = TOO_MANY_ATTEMPTS;
    } else {
      await records.reopenCheckout(this.checkoutId, reason, payment);
      state.status = 'open';
      state.declineReason = reason;
    }
    return { outcome: 'declined', checkout: this.view(a, payment?.paymentData ?? null), payment };
  }

  /** Records the paid checkout (workflows/checkout-sale.ts): the sale, or the capture given back. */
  recordSale(a: Attempt, approved: PaymentSummary | null): Promise<ConfirmCheckoutResult> {
    return recordCheckoutSale(this, a, approved);
  }

  /**
   * Waits for the pix/boleto to be paid, or the card's review to end, or its deadline; the gateway is
   * the source of truth.
   */
  async settlePendingPayment(): Promise<void> {
    const p = this.pending!;
    const { notices } = this;
    const noticed = () => notices.includes(p.transactionId);
    const notified = await condition(
      () => noticed() || this.switching,
      Math.max(p.payBy + DEADLINE_SLACK_MS - Date.now(), 1),
    );
    if (this.switching) return; // the buyer is paying another way instead (switchPayment)
    this.settling = true;
    try {
      await this.settleWoken(p, notified);
    } finally {
      this.settling = false;
    }
  }

  /** The pending payment's wait woke (a notice, or its deadline): paid, still pending, refused or failed. */
  private async settleWoken(p: PendingPayment, notified: boolean): Promise<void> {
    const { notices, state } = this;
    notices.splice(0, notices.length, ...notices.filter((id) => id !== p.transactionId));
    const payment = await untilAnswered.syncPayment(p.transactionId);
    if (payment.status === 'succeeded') return void (await this.recordSale(p.attempt, payment));
    if (payment.status === 'pending' && notified) return; // an early or repeated notice: keep waiting
    const settled =
      payment.status === 'pending'
        ? await untilAnswered.cancelPendingPayment(this.checkoutId, p.transactionId)
        : payment;
    if (settled.status === 'succeeded') return void (await this.recordSale(p.attempt, settled));
    this.pending = null;
    state.pendingTransactionId = null;
    if (p.kind === 'credit_card') return this.reviewEnded(p, settled);
    if (p.kind === 'pix' && pixRenewable(this.expiresAt, Date.now())) {
      await reopenForNewPix(this.checkoutId, p, settled, this.abandoned);
      return void Object.assign(state, { status: 'open', declineReason: PIX_EXPIRED });
    }
    const reason = p.kind === 'pix' ? 'expired' : 'overdue';
    await records.failCheckout(this.checkoutId, reason, settled);
    state.status = 'failed';
    state.declineReason = reason;
  }

  /**
   * A card's review ended without an approval: refused, it is a decline with its reason; still undecided
   * at the deadline, it was cancelled (or its cancellation refused) and the checkout opens again, the
   * payment watched a while for an approval that crossed the cancellation (refunded: checkout-aftermath.ts).
   */
  private async reviewEnded(p: PendingPayment, settled: PaymentSummary): Promise<void> {
    const refused = settled.status === 'failed';
    if (!refused) this.abandoned.push({ transactionId: p.transactionId, payBy: Date.now() + CARD_GIVEN_UP_WATCH_MS });
    await this.decline(p.attempt, refused ? (settled.declineReason ?? 'card_declined') : REVIEW_EXPIRED, settled);
  }

  /**
   * The buyer waiting on a pix or boleto pays by card instead, or one whose card is under review tries
   * again (another card, a pix, a boleto): the pending charge is cancelled at the gateway first. Paid
   * meanwhile, it is the sale (and the new try is refused as the checkout is no longer open); a card
   * whose cancellation the gateway refused is still under review, and the new try is refused as well;
   * otherwise the checkout opens again and the new try is confirmed as any first try.
   */
  async switchPayment(request: ConfirmCheckoutInput): Promise<ConfirmCheckoutResult> {
    const p = this.pending!;
    this.switching = true;
    try {
      const settled = await untilAnswered.cancelPendingPayment(this.checkoutId, p.transactionId);
      if (settled.status === 'succeeded') await this.recordSale(p.attempt, settled);
      if (settled.status === 'succeeded' || settled.status === 'pending') {
        throw ApplicationFailure.nonRetryable(`Checkout is ${this.state.status}`, CHECKOUT_NOT_OPEN);
      }
      this.pending = null;
      this.state.pendingTransactionId = null;
      // A bank may still pay a cancelled pix/boleto until its deadline; a card's approval may cross its cancellation.
      const watchUntil = p.kind === 'credit_card' ? Date.now() + CARD_GIVEN_UP_WATCH_MS : p.payBy;
      if (p.kind !== 'credit_card' || settled.status !== 'failed') {
        this.abandoned.push({ transactionId: p.transactionId, payBy: watchUntil });
      }
      await records.reopenCheckout(this.checkoutId, METHOD_CHANGED, settled);
      this.state.status = 'open';
    } finally {
      this.switching = false;
    }
    return this.confirm(request);
  }

  /** Picks up what a lost run left (workflows/checkout-resume.ts) as that run would have gone on. */
  async resume(left: LostPayment): Promise<void> {
    if (left && 'pending' in left) {
      this.pending = left.pending;
      this.state.pendingTransactionId = left.pending.transactionId;
      // As if the gateway had sent a notice: one may have come while no run was there to hear it, and
      // a deadline that passed meanwhile is reconciled there (paid: recorded; else cancelled, then failed).
      this.notices.push(left.pending.transactionId);
    } else if (left) {
      this.slots = left.inFlight.slot;
      if (!requiresCharge(left.inFlight.prepared.amount)) return void (await this.recordSale(left.inFlight, null));
      this.unresolved = left.inFlight;
      this.state.processing = true;
    }
  }

  view(a: Attempt, paymentData: GatewayPaymentData | null): ConfirmCheckoutResult['checkout'] {
    return confirmationView(this.checkoutId, this.state, a, paymentData);
  }
}
