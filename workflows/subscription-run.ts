import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  log,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { PAYMENT_ISSUE } from '../domain/search-attributes.ts';
import {
  isHardDecline,
  renewalCheckoutDeadline,
  subscriptionHasEnded,
  tryAfterRefusal,
} from '../domain/subscriptions.ts';
import {
  type CheckoutPaidNotice,
  type CheckoutSaleVerdict,
  type RenewalCharge,
  type RenewalOutcome,
  RENEWAL_REFUND_REFUSED,
  type SubscriptionRunState,
  type SubscriptionWorkflowInput,
} from '../contracts/subscription.ts';
import { SubscriptionClock } from './clock.ts';
import { payments, records, renewalRecords } from './subscription-activity-proxies.ts';

/**
 * One run of a subscription's workflow (workflows/subscription.ts reads its life top to bottom): its
 * state, what its handlers tell it, and the period steps both halves take (manual
 * renewals, workflows/subscription-manual.ts; the gateway's, workflows/subscription-gateway.ts).
 * Everything here is workflow code: deterministic, and every side effect an activity.
 */
export class SubscriptionRun {
  readonly subscriptionId: string;
  /** Carried from the run before, or read by `load` (until then `ready` is false). */
  state: SubscriptionRunState;
  ready = false;
  /** Revoked: seen at once, before its record (a charge on its way is given back when it lands). */
  revoked = false;
  /**
   * Set by handlers, reset by the loops: `noticed` the gateway sent word of an invoice; `woken` by
   * that or a merchant's change; `changing` Updates waiting for their step (no continue-as-new meanwhile).
   */
  readonly flags = { noticed: false, woken: false, changing: 0 };
  /** The subscription's time, the only one its steps ask for (its sandbox test clock's, if moved). */
  readonly clock = new SubscriptionClock(() => this.state);
  /** Paid renewal and upgrade checkouts (checkoutPaidUpdate), recorded between the renewals, one at a time. */
  readonly sales: SaleInTurn[] = [];
  /** The run's life is over: a sale that comes now is refused at once. */
  closed = false;
  private lastStep: Promise<unknown> = Promise.resolve();

  constructor(input: SubscriptionWorkflowInput) {
    this.subscriptionId = input.subscriptionId;
    this.state = input.state as SubscriptionRunState;
  }

  /** The state, read from the subscription when this is its first run. */
  async load(carried: boolean): Promise<void> {
    if (!carried) this.state = await initialState(this.subscriptionId);
    this.ready = true;
  }

  ended(): boolean {
    return subscriptionHasEnded(this.state.status, this.revoked);
  }

  /**
   * The workflow is its subscription's only writer and no step holds a lock across the gateway's call:
   * a step that calls the gateway and then records (a renewal, a plan change) runs one at a time with
   * every other writing step, in the order they came.
   */
  oneAtATime<T>(step: () => Promise<T>): Promise<T> {
    const next = this.lastStep.then(step);
    this.lastStep = next.catch(() => undefined);
    return next;
  }

  /** A paid charge of the next period: the period is entered; true when it was (not revoked meanwhile). */
  async paidPeriod(charge: RenewalCharge, outcome: RenewalOutcome, at: string): Promise<boolean> {
    const { state } = this;
    // Revoked meanwhile: the payment is recorded, but the period is not entered (the money goes back below).
    const recorded = await renewalRecords.recordRenewal({ ...charge, ...outcome, at, enter: !this.revoked });
    state.status = recorded.status;
    if (this.revoked && outcome.payment) {
      // Revoked while the charge was on its way: the money goes back.
      await this.giveBack(charge, outcome.payment);
      return false;
    }
    state.periodNumber = charge.period;
    state.periodEnd = recorded.periodEnd;
    state.tryNumber = 1;
    state.firstFailureAt = null;
    state.lastGatewayCharge = null;
    return true;
  }

  /**
   * A renewal's payment given back (it raced the subscription's end) and recorded so. A refund the
   * gateway refuses outright is left for an operator (PaymentIssue): it never ends the workflow.
   */
  async giveBack(charge: RenewalCharge, payment: PaymentSummary): Promise<void> {
    try {
      const refunded = await payments.refundRenewal({ ...charge, payment });
      await records.recordRenewalRefunded({ ...charge, payment: refunded });
    } catch (err) {
      if (!isGatewayRefusal(err)) throw err;
      log.warn('The gateway refused to give a raced renewal back', { period: charge.period, error: err.message });
      upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: RENEWAL_REFUND_REFUSED }]);
    }
  }

  /**
   * The subscription moved on to a period a checkout's sale paid: the run follows it (an upgrade may
   * bring a card, and undoes a cancellation at period end).
   */
  movedTo(to: { periodNumber: number; periodEnd: string; hasCard: boolean; cancelAtPeriodEnd: boolean }): void {
    const { state } = this;
    state.periodNumber = to.periodNumber;
    state.periodEnd = to.periodEnd;
    state.hasCard = to.hasCard;
    state.cancelAtPeriodEnd = to.cancelAtPeriodEnd;
    state.tryNumber = 1;
    state.firstFailureAt = null;
  }

  /**
   * A refused try: past due, with the gateway's reason; a hard decline skips the remaining retries.
   * On a manual renewal's first refusal the customer also gets the renewal checkout, to pay another
   * way until the deadline (this workflow records that checkout's sale between its card's retries).
   */
  async refusedPeriod(charge: RenewalCharge, outcome: RenewalOutcome, at: string): Promise<void> {
    const { state } = this;
    const reason = outcome.payment?.declineReason ?? outcome.refusal ?? 'card_declined';
    state.status = await records.recordRenewalFailure({ ...charge, ...outcome, declineReason: reason, at });
    // Not when a hard decline cancels it right away: that checkout's payment would only be given back.
    const ends = isHardDecline(reason) && state.exhaustedStatus === 'canceled';
    if (!state.firstFailureAt && !ends && state.billing === 'manual') {
      await this.openRenewalCheckout(charge.period, at);
    }
    state.firstFailureAt ??= at;
    state.tryNumber = tryAfterRefusal(state.tryNumber, reason, state.retryDays);
  }

  /** Opens the period's renewal checkout until its deadline; a refusal leaves the merchant's way open. */
  async openRenewalCheckout(period: number, at: string): Promise<void> {
    const deadline = renewalCheckoutDeadline(new Date(at), this.state.retryDays);
    try {
      await records.openRenewalCheckout({
        subscriptionId: this.subscriptionId,
        period,
        expiresAt: deadline.toISOString(),
      });
    } catch (err) {
      // Refused (say, its product was archived): the merchant can still open one; dunning goes on.
      if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure)) throw err;
      upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: 'renewal_checkout_refused' }]);
    }
  }

  /** Every retry was refused (or a hard decline ended dunning): unpaid or canceled, per organization. */
  async exhaustDunning(): Promise<void> {
    const exhausted = await records.changeSubscription({
      subscriptionId: this.subscriptionId,
      change: 'dunning_exhausted',
      exhaustedStatus: this.state.exhaustedStatus,
      at: this.clock.nowIso(),
    });
    this.state.status = exhausted.status;
  }

  /** The period is over (or, in dunning, the next retry is due): it ends with no further charge. */
  async closePeriod(): Promise<void> {
    const closed = await records.changeSubscription({
      subscriptionId: this.subscriptionId,
      change: 'period_ended_canceled',
      at: this.clock.nowIso(),
    });
    this.state.status = closed.status;
  }

  /** Answers a checkout's sale (its Update returns the verdict; a refused one gives its capture back). */
  answer(sale: SaleInTurn, verdict: CheckoutSaleVerdict): void {
    sale.verdict = verdict;
  }

  /** Refuses every checkout sale still waiting (the subscription ended, or it is not billed manually). */
  refuseSales(reason: string): void {
    for (const sale of this.sales.splice(0)) this.answer(sale, { accepted: false, reason });
  }

  /**
   * Waits for the Updates under way to return before the run continues as new or ends (their answers
   * would be lost with it), or for a sale that comes meanwhile, which its run records first.
   */
  async untilHandlersDone(): Promise<void> {
    await condition(() => this.sales.length > 0 || allHandlersFinished());
  }
}

/** A definite refusal by the gateway (GatewayRefusal) of an activity's call. */
export function isGatewayRefusal(err: unknown): err is ActivityFailure {
  return (
    err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === GATEWAY_REFUSAL
  );
}

/** A paid checkout's sale waiting for its turn; `verdict` is set once it is recorded or refused. */
export interface SaleInTurn {
  notice: CheckoutPaidNotice;
  verdict: CheckoutSaleVerdict | null;
}

/** A run's state read from the subscription (a run started without carried state: its first). */
async function initialState(subscriptionId: string): Promise<SubscriptionRunState> {
  const plan = await records.loadSubscription(subscriptionId);
  return {
    status: plan.status,
    periodNumber: plan.periodNumber,
    periodEnd: plan.currentPeriodEnd,
    cancelAtPeriodEnd: plan.cancelAtPeriodEnd,
    billing: plan.recurrenceBilling,
    hasCard: plan.hasCard,
    tryNumber: 1,
    firstFailureAt: null,
    retryDays: plan.retryDays,
    exhaustedStatus: plan.exhaustedStatus,
    renewalDelayMs: plan.renewalDelayMs,
  };
}
