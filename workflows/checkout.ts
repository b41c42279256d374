import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  patched,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  CHECKOUT_NOT_OPEN,
  CONFIRMATION_IN_PROGRESS,
  CONFIRMATION_INVALID,
  firstSubscriptionPeriod,
  MAX_DECLINED_CONFIRMATIONS,
  paymentKey,
  requiresCharge,
  TOO_MANY_ATTEMPTS,
  type CheckoutStatus,
  type ConfirmCheckoutInput,
  type ConfirmCheckoutResult,
  type GatewayPaymentData,
  type PaymentSummary,
  type PendingPaymentKind,
} from '../domain/checkout.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import { isoDate } from '../domain/periods.ts';
import { CUSTOMER_ID, PAYMENT_ISSUE, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { renewalPaidSignal } from '../contracts/subscription.ts';
import { startSubscriptionWorkflow, undoLateArrivals } from './checkout-aftermath.ts';
import { lostPayment, type LostPayment } from './checkout-resume.ts';
import {
  checkoutStateQuery,
  confirmCheckoutUpdate,
  paymentUpdatedSignal,
  RENEWAL_SIGNAL_PATCH,
  RESUME_PAYMENT_PATCH,
  SUBSCRIPTION_WORKFLOW_PATCH,
  UPGRADE_PATCH,
  type CheckoutState,
  type CheckoutWorkflowInput,
} from '../contracts/checkout.ts';
import {
  DEADLINE_SLACK_MS,
  isFailure,
  payments,
  records,
  untilAnswered,
  type Attempt,
} from './checkout-activity-proxies.ts';

/**
 * A checkout's whole life: open until confirmed or expired. A confirmation (Workflow Update) fixes
 * the amount, charges the card or issues the pix/boleto, and records the sale; a payment call whose
 * answer was lost is resolved by asking the gateway before anything else is accepted; a pending
 * pix/boleto waits for the gateway's callback (signal) or its deadline.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<{ status: CheckoutStatus }> {
  const { checkoutId, organizationId } = input;
  const state: CheckoutState = {
    status: 'open',
    declined: 0,
    confirming: false,
    processing: false,
    declineReason: null,
    pendingTransactionId: null,
    customerId: null,
    subscriptionId: null,
  };
  let loaded = false;
  let slots = 0;
  let unresolved: Attempt | null = null;
  let pending: { attempt: Attempt; transactionId: string; kind: PendingPaymentKind; payBy: number } | null = null;
  /** Transactions the gateway told us about; kept even when the notice beats the pix/boleto's own answer. */
  const notices: string[] = [];
  /** Payment calls the gateway said it never processed; each is checked again before the run ends. */
  const doubtful: Attempt[] = [];
  let recordedPaymentId: string | null = null;

  const view = (a: Attempt, paymentData: GatewayPaymentData | null): ConfirmCheckoutResult['checkout'] => ({
    id: checkoutId,
    status: state.status,
    payment_method: a.request.paymentMethod,
    amount: a.prepared.amount,
    currency: a.prepared.currency,
    gateway_payment_data: paymentData,
    decline_reason: state.declineReason,
  });

  async function confirm(request: ConfirmCheckoutInput): Promise<ConfirmCheckoutResult> {
    const prepared = await records.prepareConfirmation(checkoutId, request, slots + 1);
    state.status = 'confirmed';
    state.declineReason = null;
    slots = prepared.slot ?? slots + 1;
    const attempt: Attempt = { request, prepared, slot: slots };
    if (!requiresCharge(prepared.amount)) return recordSale(attempt, null);
    let outcome: { payment: PaymentSummary; payBy: string | null } | null;
    try {
      outcome = await pay(attempt, payments);
    } catch (err) {
      if (isFailure(err, GATEWAY_REFUSAL)) return decline(attempt, 'processing_error', null);
      // No answer: the gateway may or may not have acted. Nothing else happens until it says which.
      unresolved = attempt;
      state.processing = true;
      try {
        outcome = await resolve(attempt, payments);
      } catch {
        return { outcome: 'processing', checkout: view(attempt, null), payment: null };
      }
      unresolved = null;
      state.processing = false;
    }
    return outcome ? settle(attempt, outcome) : neverProcessed(attempt);
  }

  /** The gateway says the call never reached it: the buyer may try again; the key is checked again at the end. */
  function neverProcessed(a: Attempt): Promise<ConfirmCheckoutResult> {
    doubtful.push(a);
    return decline(a, 'processing_error', null);
  }

  /** The slot's payment call: a card charge, or a pix/boleto issued. */
  async function pay(a: Attempt, via: typeof payments): Promise<{ payment: PaymentSummary; payBy: string | null }> {
    const { request, prepared, slot } = a;
    if (request.paymentMethod === 'credit_card') {
      const payment = await via.chargeCard({
        checkoutId,
        slot,
        amount: prepared.amount,
        currency: prepared.currency,
        installments: request.installments,
        noFeesInstallments: prepared.noFeesInstallments,
        cardTokenId: request.card!.id,
      });
      return { payment, payBy: null };
    }
    return via.issuePendingPayment({
      checkoutId,
      organizationId,
      slot,
      kind: request.paymentMethod,
      amount: prepared.amount,
      currency: prepared.currency,
      buyer: prepared.buyer,
      expiresAt: prepared.expiresAt,
    });
  }

  /**
   * What became of a call that got no answer: null when the gateway never processed it; otherwise
   * the same call again, whose key returns what was done (and finishes a capture left half-way).
   */
  async function resolve(a: Attempt, via: typeof payments) {
    const found = await via.findPayment(paymentKey(checkoutId, a.request.paymentMethod, a.slot));
    return found ? pay(a, via) : null;
  }

  async function settle(a: Attempt, outcome: { payment: PaymentSummary; payBy: string | null }) {
    const { payment, payBy } = outcome;
    if (payBy !== null) {
      pending = {
        attempt: a,
        transactionId: payment.id,
        kind: a.request.paymentMethod as PendingPaymentKind,
        payBy: Date.parse(payBy),
      };
      state.pendingTransactionId = payment.id;
      return { outcome: 'pending' as const, checkout: view(a, payment.paymentData), payment };
    }
    if (payment.status === 'succeeded') return recordSale(a, payment);
    return decline(a, payment.declineReason ?? 'card_declined', payment);
  }

  /** A refused payment: open again for another try, or failed once the attempts are used up. */
  async function decline(a: Attempt, reason: string, payment: PaymentSummary | null): Promise<ConfirmCheckoutResult> {
    state.declined += 1;
    if (state.declined >= MAX_DECLINED_CONFIRMATIONS) {
      await records.failCheckout(checkoutId, TOO_MANY_ATTEMPTS, payment);
      state.status = 'failed';
      state.declineReason = TOO_MANY_ATTEMPTS;
    } else {
      await records.reopenCheckout(checkoutId, reason, payment);
      state.status = 'open';
      state.declineReason = reason;
    }
    return { outcome: 'declined', checkout: view(a, payment?.paymentData ?? null), payment };
  }

  /**
   * Records the paid checkout: the gateway subscription of a gateway-billed recurring price first
   * (its outcome must be known, or the gateway could bill a subscription we do not hold), then the
   * customer, transaction, subscription and sale in one transaction. Should the record be refused
   * for good, the capture is given back: never money without a sale.
   */
  async function recordSale(a: Attempt, payment: PaymentSummary | null): Promise<ConfirmCheckoutResult> {
    const paidAt = new Date();
    // A renewal checkout pays a period of its subscription: no new subscription, no gateway recurrence.
    const recurring = a.prepared.renewal ? null : a.prepared.recurring;
    const period = recurring
      ? firstSubscriptionPeriod(
          { interval: recurring.interval, intervalCount: recurring.intervalCount },
          recurring.trial,
          paidAt,
        )
      : null;
    let gatewaySubscriptionId: string | null = null;
    if (recurring?.billing === 'gateway' && a.request.card) {
      try {
        gatewaySubscriptionId = await untilAnswered.createGatewaySubscription({
          checkoutId,
          priceId: a.prepared.priceId,
          cardTokenId: a.request.card.id,
          buyer: a.prepared.buyer,
          startDate: isoDate(period!.periodEnd),
        });
      } catch (err) {
        // Refused by the gateway: our own renewals bill the subscription instead (docs/decisions.md).
        if (!isFailure(err, GATEWAY_REFUSAL)) throw err;
      }
    }
    let sale;
    try {
      sale = await records.recordSale({
        checkoutId,
        payment,
        subscription: period && {
          status: period.status,
          periodStart: paidAt.toISOString(),
          periodEnd: period.periodEnd.toISOString(),
          trialEnd: period.trialEnd?.toISOString() ?? null,
          gatewaySubscriptionId,
          cardTokenId: a.request.card?.id ?? null,
        },
      });
    } catch (err) {
      // Refused for good (retryable failures are retried until they succeed); a local activity's
      // failure arrives unwrapped.
      if (!(err instanceof ActivityFailure || err instanceof ApplicationFailure)) throw err;
      return giveBack(a, payment);
    }
    state.status = 'succeeded';
    recordedPaymentId = payment?.id ?? null;
    state.customerId = sale.customerId;
    state.subscriptionId = sale.subscriptionId;
    upsertSearchAttributes([
      { key: CUSTOMER_ID, value: sale.customerId },
      ...(sale.subscriptionId ? [{ key: SUBSCRIPTION_ID, value: sale.subscriptionId }] : []),
    ]);
    const renewal = a.prepared.renewal;
    const upgrade = a.prepared.upgrade;
    if ((renewal && patched(RENEWAL_SIGNAL_PATCH)) || (upgrade && patched(UPGRADE_PATCH))) {
      // The sale moved the subscription into the paid period (or onto its new price); its workflow reads it again.
      await getExternalWorkflowHandle(subscriptionWorkflowId((renewal ?? upgrade)!.subscriptionId))
        .signal(renewalPaidSignal)
        .catch(() => undefined); // no running workflow (ended, or recorded before they existed): nothing to tell
    } else if (sale.subscriptionId && patched(SUBSCRIPTION_WORKFLOW_PATCH)) {
      // Runs recorded before subscriptions had a workflow of their own replay without this start.
      await startSubscriptionWorkflow(organizationId, sale.subscriptionId, sale.customerId);
    }
    return { outcome: 'succeeded', checkout: view(a, payment?.paymentData ?? null), payment };
  }

  /** The money-transfer sample's compensation: refund the capture, end the checkout failed, flag the run. */
  async function giveBack(a: Attempt, payment: PaymentSummary | null): Promise<ConfirmCheckoutResult> {
    const refunded =
      payment && payment.capturedAmount > 0
        ? await untilAnswered.refundUnrecordedCapture(checkoutId, payment)
        : payment;
    upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: 'capture_refunded_unrecorded' }]);
    await records.failCheckout(checkoutId, 'recording_failed', refunded);
    state.status = 'failed';
    state.declineReason = 'recording_failed';
    return { outcome: 'declined', checkout: view(a, refunded?.paymentData ?? null), payment: refunded };
  }

  /** Waits for the pix/boleto to be paid or to pass its deadline; the gateway is the source of truth. */
  async function settlePendingPayment(p: NonNullable<typeof pending>) {
    const noticed = () => notices.includes(p.transactionId);
    const notified = await condition(noticed, Math.max(p.payBy + DEADLINE_SLACK_MS - Date.now(), 1));
    notices.splice(0, notices.length, ...notices.filter((id) => id !== p.transactionId));
    const payment = await untilAnswered.syncPayment(p.transactionId);
    if (payment.status === 'succeeded') return void (await recordSale(p.attempt, payment));
    if (payment.status === 'pending' && notified) return; // an early or repeated notice: keep waiting
    const settled =
      payment.status === 'pending' ? await untilAnswered.cancelPendingPayment(checkoutId, p.transactionId) : payment;
    if (settled.status === 'succeeded') return void (await recordSale(p.attempt, settled));
    pending = null;
    state.pendingTransactionId = null;
    const reason = p.kind === 'pix' ? 'expired' : 'overdue';
    await records.failCheckout(checkoutId, reason, settled);
    state.status = 'failed';
    state.declineReason = reason;
  }

  setHandler(checkoutStateQuery, () => ({ ...state }));
  setHandler(paymentUpdatedSignal, (notice) => {
    if (!notices.includes(notice.transactionId)) notices.push(notice.transactionId);
    if (notices.length > 20) notices.shift();
  });
  setHandler(
    confirmCheckoutUpdate,
    async (request) => {
      // Set before the first await: a second confirmation in the same activation is already rejected.
      state.confirming = true;
      try {
        await condition(() => loaded);
        if (state.status !== 'open') {
          throw ApplicationFailure.nonRetryable(`Checkout is ${state.status}`, CHECKOUT_NOT_OPEN);
        }
        return await confirm(request);
      } catch (err) {
        // A refusal of the confirmation itself (not open, a bad discount code) reaches the API as is.
        if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) throw err.cause;
        throw err;
      } finally {
        state.confirming = false;
      }
    },
    {
      validator: (request) => {
        if (state.confirming) {
          throw ApplicationFailure.nonRetryable(
            'A confirmation of this checkout is in progress',
            CONFIRMATION_IN_PROGRESS,
          );
        }
        if (loaded && state.status !== 'open') {
          throw ApplicationFailure.nonRetryable(`Checkout is ${state.status}`, CHECKOUT_NOT_OPEN);
        }
        if (request.paymentMethod === 'credit_card' && !request.card) {
          throw ApplicationFailure.nonRetryable('A card token is required', CONFIRMATION_INVALID);
        }
      },
    },
  );

  const checkout = input.openUntil
    ? { status: 'open' as const, expiresAt: input.openUntil, declineReason: null }
    : await records.loadCheckout(checkoutId);
  if (!checkout) throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} not found`, 'CheckoutNotFound');
  state.status = checkout.status;
  state.declineReason = checkout.declineReason;
  loaded = true;
  const expiresAt = Date.parse(checkout.expiresAt);
  // Started again on a confirmed checkout (the sweep, after its run was lost): a pix or boleto it
  // issued is waited for as before, a payment call whose answer it lost is asked about. Runs recorded
  // before this was possible replay without the step.
  const lost = state.status === 'confirmed' && !input.openUntil && patched(RESUME_PAYMENT_PATCH);
  if (lost) await resume(await lostPayment(checkoutId));

  for (;;) {
    if (state.confirming) {
      await condition(() => !state.confirming);
    } else if (state.status === 'open') {
      const woke = await condition(
        () => state.confirming || state.status !== 'open',
        Math.max(expiresAt - Date.now(), 1),
      );
      if (woke) continue;
      // Expiring: from here the validator refuses confirmations (the status is no longer open).
      state.status = 'expired';
      await records.expireCheckout(checkoutId);
    } else if (state.status === 'confirmed' && unresolved) {
      const a: Attempt = unresolved;
      const outcome = await resolve(a, untilAnswered);
      unresolved = null;
      state.processing = false;
      await (outcome ? settle(a, outcome) : neverProcessed(a));
    } else if (state.status === 'confirmed' && pending) {
      await settlePendingPayment(pending);
    } else {
      break;
    }
  }
  await condition(allHandlersFinished);
  if (doubtful.length > 0) await undoLateArrivals(checkoutId, doubtful, recordedPaymentId);
  return { status: state.status };

  /** Picks up what a lost run left (workflows/checkout-resume.ts) as that run would have gone on. */
  async function resume(left: LostPayment): Promise<void> {
    if (left && 'pending' in left) {
      pending = left.pending;
      state.pendingTransactionId = pending.transactionId;
      // As if the gateway had sent a notice: one may have come while no run was there to hear it, and
      // a deadline that passed meanwhile is reconciled there (paid: recorded; else cancelled, then failed).
      notices.push(pending.transactionId);
    } else if (left) {
      slots = left.inFlight.slot;
      if (!requiresCharge(left.inFlight.prepared.amount)) return void (await recordSale(left.inFlight, null));
      unresolved = left.inFlight;
      state.processing = true;
    }
  }
}
