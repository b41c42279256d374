import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { PAYMENT_ISSUE } from '../domain/search-attributes.ts';
import {
  deadlineTry,
  isHardDecline,
  nextRenewalChargeAt,
  pastScheduleTry,
  renewalCheckoutDeadline,
  SUBSCRIPTION_ACTIONS,
  SUBSCRIPTION_ENDED,
  SUBSCRIPTION_ENDED_MESSAGE,
  subscriptionHasEnded,
  tryAfterRefusal,
  type SubscriptionStatus,
} from '../domain/subscriptions.ts';
import {
  advanceClockUpdate,
  changeMetadataUpdate,
  changePriceUpdate,
  changeSubscriptionUpdate,
  checkoutPaidSignal,
  gatewayInvoiceSignal,
  INVALID_CLOCK,
  ONE_STEP_AT_A_TIME_PATCH,
  RENEWAL_CHECKOUT_PATCH,
  renewalPaidSignal,
  subscriptionStateQuery,
  type CheckoutPaidNotice,
  type CheckoutSaleVerdict,
  type RenewalCharge,
  type RenewalOutcome,
  type SubscriptionRunState,
  type SubscriptionWorkflowInput,
} from '../contracts/subscription.ts';
import { checkoutWorkflowId, subscriptionSaleVerdictSignal } from '../contracts/checkout.ts';
import { gatewayBilledPeriods, stopGatewayRecurrence } from './subscription-gateway.ts';
import { initialState, payments, records, renewalRecords, type SubscriptionRun } from './subscription-run.ts';

const GATEWAY_BILLED = 'the gateway bills this subscription';

/**
 * A subscription's whole life, one period per run: it waits for the period's end, renews (charging
 * the saved card), retries a refused renewal on the organization's dunning schedule, and ends when
 * canceled at period end or revoked. Merchant changes arrive as Updates; a revocation stops every
 * pending charge at once, and a charge that raced it is refunded. It is its subscription's only
 * writer: a paid renewal or upgrade checkout tells it (checkoutPaid), and it records the sale's moves.
 */

export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<SubscriptionStatus> {
  const { subscriptionId } = input;
  // Carried, or read below (until then `ready` is false): the handlers are set before that read, so an
  // Update that comes with the start is not refused.
  let state = input.state as SubscriptionRunState;
  let ready = false;
  let revoked = false;
  const ended = () => subscriptionHasEnded(state.status, revoked);
  /** An Update's validator: nothing changes a subscription that has ended (once its state is known). */
  const refuseIfEnded = () => {
    if (ready && ended()) throw ApplicationFailure.nonRetryable(SUBSCRIPTION_ENDED_MESSAGE, SUBSCRIPTION_ENDED);
  };
  /** Updates waiting for their database step; renewals wait for them, so the two never interleave. */
  const flags = { noticed: false, woken: false, changing: 0 };
  /**
   * The workflow is its subscription's only writer and no step holds a lock across the gateway's call:
   * a step that calls the gateway and then records (a renewal, a plan change) runs one at a time with
   * every other writing step, in the order they came. Runs from before replay as they ran.
   */
  let lastStep: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(step: () => Promise<T>): Promise<T> => {
    if (!patched(ONE_STEP_AT_A_TIME_PATCH)) return step();
    const next = lastStep.then(step);
    lastStep = next.catch(() => undefined);
    return next;
  };

  /** Runs from before this workflow recorded its checkouts' sales: a renewal checkout's sale moved the row. */
  let paidElsewhere = false;
  /** Paid renewal and upgrade checkouts, recorded by the loop between its renewals, one at a time. */
  const sales: CheckoutPaidNotice[] = [];
  // flags.noticed: the gateway sent word of an invoice (gateway billing); flags.woken also by a merchant's change.
  /** The test clock moved: waits are worked out again. */
  let clockMoved = false;
  /** This subscription's time: real time, or ahead of it by its test clock (sandbox). */
  const now = () => Date.now() + (state?.clockOffsetMs ?? 0);
  const nowIso = () => new Date(now()).toISOString();
  /** Where the test clock stands or is going. */
  const clockTime = () => Math.max(now(), state?.clockTarget ? Date.parse(state.clockTarget) : 0);
  /**
   * Waits until `when` (or forever) or `stop`. A test clock moved past `when` jumps to it instead,
   * so what falls due happens at its own time, one step after the other, until the clock's time.
   */
  const sleepUntil = async (when: number | null, stop: () => boolean) => {
    const target = state.clockTarget ? Date.parse(state.clockTarget) : null;
    if (target !== null) {
      if (when !== null && when <= target) {
        state.clockOffsetMs = (state.clockOffsetMs ?? 0) + Math.max(when - now(), 0);
        return;
      }
      state.clockOffsetMs = (state.clockOffsetMs ?? 0) + Math.max(target - now(), 0);
      state.clockTarget = null;
    }
    if (when === null) await condition(stop);
    else await condition(stop, Math.max(when - now(), 1));
  };

  setHandler(subscriptionStateQuery, () => ({ ...state }));
  setHandler(renewalPaidSignal, () => {
    paidElsewhere = true;
  });
  setHandler(checkoutPaidSignal, (notice) => {
    // The gateway's recurrence pays a gateway-billed subscription's periods: no checkout does.
    if (ready && state.billing === 'gateway') void answer(notice, { accepted: false, reason: GATEWAY_BILLED });
    else sales.push(notice); // synchronously: a run never moves on with a sale it has not seen
  });
  setHandler(gatewayInvoiceSignal, () => {
    flags.noticed = flags.woken = true;
  });
  setHandler(
    changeSubscriptionUpdate,
    async (action) => {
      flags.changing++;
      try {
        await condition(() => ready);
        if (action === 'revoke') {
          // At once: a renewal charge on its way is given back when it lands (paidPeriod).
          revoked = true;
          return await oneAtATime(async () => {
            const record = await records.changeSubscription({ subscriptionId, change: 'revoked', at: nowIso() });
            state.status = record.status;
            return record;
          });
        }
        const cancel = action === 'cancel_at_period_end';
        return await oneAtATime(async () => {
          const record = await records.setCancelAtPeriodEnd({ subscriptionId, cancel, at: nowIso() });
          state.cancelAtPeriodEnd = cancel;
          flags.woken = true;
          return record;
        });
      } finally {
        flags.changing--;
      }
    },
    {
      validator: (action) => {
        if (!SUBSCRIPTION_ACTIONS.includes(action)) {
          throw ApplicationFailure.nonRetryable(`Unknown action ${String(action)}`, 'InvalidAction');
        }
        refuseIfEnded();
      },
    },
  );

  setHandler(
    changePriceUpdate,
    async ({ priceId }) => {
      flags.changing++;
      try {
        await condition(() => ready);
        // Never under a renewal's charge: one step at a time.
        return await oneAtATime(() => payments.changePrice({ subscriptionId, priceId, at: nowIso() }));
      } finally {
        flags.changing--;
      }
    },
    {
      validator: (change) => {
        if (typeof change?.priceId !== 'string') {
          throw ApplicationFailure.nonRetryable('A price id is required', 'InvalidAction');
        }
        refuseIfEnded();
      },
    },
  );

  setHandler(
    changeMetadataUpdate,
    async ({ metadata }) => {
      flags.changing++; // counted like the others: no continue-as-new while it is being written
      try {
        await condition(() => ready);
        return await oneAtATime(() => records.replaceSubscriptionMetadata({ subscriptionId, metadata, at: nowIso() }));
      } finally {
        flags.changing--;
      }
    },
    {
      validator: (change) => {
        if (typeof change?.metadata !== 'object' || change.metadata === null) {
          throw ApplicationFailure.nonRetryable('A metadata object is required', 'InvalidAction');
        }
        refuseIfEnded();
      },
    },
  );

  setHandler(
    advanceClockUpdate,
    async ({ to }) => {
      await condition(() => ready);
      if (Date.parse(to) <= clockTime()) {
        throw ApplicationFailure.nonRetryable(
          "A test clock only moves forward, past the subscription's now",
          INVALID_CLOCK,
        );
      }
      state.clockTarget = new Date(to).toISOString();
      clockMoved = flags.woken = true;
      return { clock: state.clockTarget };
    },
    {
      validator: ({ to }) => {
        if (typeof to !== 'string' || Number.isNaN(Date.parse(to))) {
          throw ApplicationFailure.nonRetryable('The time is not a valid timestamp', INVALID_CLOCK);
        }
        if (ready && Date.parse(to) <= clockTime()) {
          throw ApplicationFailure.nonRetryable(
            "A test clock only moves forward, past the subscription's now",
            INVALID_CLOCK,
          );
        }
        refuseIfEnded();
      },
    },
  );

  if (!input.state) state = await initialState(subscriptionId);
  ready = true;

  const run: SubscriptionRun = {
    subscriptionId,
    get state() {
      return state;
    },
    flags,
    now,
    nowIso,
    ended,
    revoked: () => revoked,
    oneAtATime,
    sleepUntil,
    paidPeriod,
    refusedPeriod,
    exhaustDunning,
    closePeriod,
  };
  /** Waits until `when` (or forever), or until the subscription ends; true when it ended. */
  const interrupted = () => ended() || paidElsewhere || clockMoved || sales.length > 0;
  const waitUntil = async (when: number | null) => {
    clockMoved = false;
    await sleepUntil(when, interrupted);
    await condition(() => flags.changing === 0);
    return ended();
  };

  if (state.billing === 'gateway') {
    while (sales.length > 0) await answer(sales.shift()!, { accepted: false, reason: GATEWAY_BILLED });
    await gatewayBilledPeriods(run);
    if (state.status === 'canceled') await stopGatewayRecurrence(run);
  }
  while (state.billing === 'manual') {
    if (sales.length > 0) {
      await condition(() => flags.changing === 0);
      if (await oneAtATime(recordSales)) {
        await condition(() => flags.changing === 0);
        // A sale that comes while this run moves on is recorded before it does.
        if (ended() || sales.length > 0) continue;
        await continueAsNew<typeof subscriptionWorkflow>({ subscriptionId, state });
      }
      continue;
    }
    const due = nextChargeAt();
    if (due === null && state.status === 'past_due') {
      await exhaustDunning();
      continue;
    }
    if (await waitUntil(due)) break;
    if (sales.length > 0) continue;
    if (paidElsewhere) {
      paidElsewhere = false;
      if (await refreshed()) await continueAsNew<typeof subscriptionWorkflow>({ subscriptionId, state });
      continue;
    }
    // Woken by the test clock short of the due time: the wait is worked out again.
    if (due === null || now() < due) continue;
    if (state.cancelAtPeriodEnd) {
      await closePeriod();
      break;
    }
    if (!state.hasCard) {
      await unpaidWithoutCard();
      continue;
    }
    if (await oneAtATime(renew)) {
      await condition(() => flags.changing === 0);
      if (ended()) break;
      if (sales.length > 0) continue; // recorded (refused: the period is paid) before the run moves on
      // One run per period: the history stays short however long the subscription lives.
      await continueAsNew<typeof subscriptionWorkflow>({ subscriptionId, state });
    }
  }
  await condition(() => flags.changing === 0);
  // Ended: a checkout's sale is refused.
  while (sales.length > 0) await answer(sales.shift()!, { accepted: false, reason: 'the subscription has ended' });
  return state.status;

  /**
   * Records the paid renewal and upgrade checkouts that came, one at a time and never during a
   * renewal: a period is paid once, by the first. True when the subscription moved on to a period.
   */
  async function recordSales(): Promise<boolean> {
    let moved = false;
    while (sales.length > 0) {
      const notice = sales.shift()!;
      const recorded = ended()
        ? { refused: 'the subscription has ended' }
        : await records.recordCheckoutSale({ ...notice, subscriptionId, at: nowIso() });
      if (recorded.refused !== undefined) {
        await answer(notice, { accepted: false, reason: recorded.refused });
        continue;
      }
      state.status = recorded.status;
      state.periodNumber = recorded.periodNumber;
      state.periodEnd = recorded.periodEnd;
      // An upgrade may bring a card, and undoes a cancellation at period end.
      state.hasCard = recorded.hasCard;
      state.cancelAtPeriodEnd = recorded.cancelAtPeriodEnd;
      state.tryNumber = 1;
      state.firstFailureAt = null;
      moved = true;
      await answer(notice, { accepted: true });
    }
    return moved;
  }

  /** Tells the checkout's workflow what became of its sale (it gives the capture back when refused). */
  async function answer(notice: CheckoutPaidNotice, verdict: CheckoutSaleVerdict): Promise<void> {
    await getExternalWorkflowHandle(checkoutWorkflowId(notice.checkoutId))
      .signal(subscriptionSaleVerdictSignal, verdict)
      .catch(() => undefined); // no checkout workflow waits (a test, or one an operator ended): nothing to tell
  }

  /**
   * When this workflow charges next; null when it does not: the gateway bills the periods, no card
   * is saved (pix, boleto: renewal checkouts pay), the subscription is unpaid, or dunning is over.
   */
  function nextChargeAt(): number | null {
    if (state.billing !== 'manual' || state.status === 'unpaid') return null;
    // Runs from before this workflow opened renewal checkouts wait for the merchant's (or a sweep's) instead.
    if (!state.hasCard && !patched(RENEWAL_CHECKOUT_PATCH)) return null;
    // A subscription on a test clock renews at its period's end: the clock shows what falls due then.
    const testClock = state.clockOffsetMs !== undefined || Boolean(state.clockTarget);
    return nextRenewalChargeAt({ ...state, renewalDelayMs: state.renewalDelayMs ?? 0, testClock });
  }

  /** One try at the next period's charge; true when the period was paid. */
  async function renew(): Promise<boolean> {
    const charge = { subscriptionId, period: state.periodNumber + 1, tryNumber: state.tryNumber };
    const outcome: RenewalOutcome = await payments.chargeRenewal(charge);
    if (outcome.paidAlready) return refreshed(); // only in histories of runs from before the single writer
    const at = nowIso();
    const paid = outcome.payment === null || outcome.payment.status === 'succeeded';
    if (paid) return paidPeriod(charge, outcome, at);
    await refusedPeriod(charge, outcome, at);
    return false;
  }

  /** A paid charge of the next period: the period is entered; true when it was (not revoked meanwhile). */
  async function paidPeriod(charge: RenewalCharge, outcome: RenewalOutcome, at: string): Promise<boolean> {
    // Revoked meanwhile: the payment is recorded, but the period is not entered (the money goes back below).
    const recorded = await renewalRecords().recordRenewal({ ...charge, ...outcome, at, enter: !revoked });
    state.status = recorded.status;
    if (revoked && outcome.payment) {
      // Revoked while the charge was on its way: the money goes back.
      const refunded = await payments.refundRenewal({ ...charge, payment: outcome.payment });
      await records.recordRenewalRefunded({ ...charge, payment: refunded });
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
   * A refused try: past due, with the gateway's reason; a hard decline skips the remaining retries.
   * On a manual renewal's first refusal the customer also gets the renewal checkout, to pay another
   * way until the deadline (the card's retries and that checkout's sale serialize on the period).
   */
  async function refusedPeriod(charge: RenewalCharge, outcome: RenewalOutcome, at: string): Promise<void> {
    const reason = outcome.payment?.declineReason ?? 'card_declined';
    state.status = await records.recordRenewalFailure({ ...charge, ...outcome, declineReason: reason, at });
    // Not when a hard decline cancels it right away: that checkout's payment would only be given back.
    const ends = isHardDecline(reason) && state.exhaustedStatus === 'canceled';
    if (!state.firstFailureAt && !ends && state.billing === 'manual' && patched(RENEWAL_CHECKOUT_PATCH)) {
      await openRenewalCheckout(charge.period, at);
    }
    state.firstFailureAt ??= at;
    state.tryNumber = tryAfterRefusal(state.tryNumber, reason, state.retryDays);
  }

  /**
   * Manual billing with no card to charge (pix, boleto): at the period's end the renewal checkout is
   * opened for the customer and the subscription is past due; paid (renewalPaid) it moves on, and at
   * the deadline (the last dunning day) unpaid, dunning is over.
   */
  async function unpaidWithoutCard(): Promise<void> {
    if (state.firstFailureAt) {
      state.tryNumber = pastScheduleTry(state.retryDays); // the deadline passed
      return;
    }
    const at = nowIso();
    await openRenewalCheckout(state.periodNumber + 1, at);
    const due = await records.changeSubscription({ subscriptionId, change: 'payment_due', at });
    state.status = due.status;
    state.firstFailureAt = at;
    state.tryNumber = deadlineTry(state.retryDays); // next: the deadline
  }

  /** Opens the period's renewal checkout until its deadline; a refusal leaves the merchant's way open. */
  async function openRenewalCheckout(period: number, at: string): Promise<void> {
    const deadline = renewalCheckoutDeadline(new Date(at), state.retryDays);
    try {
      await records.openRenewalCheckout({ subscriptionId, period, expiresAt: deadline.toISOString() });
    } catch (err) {
      // Refused (say, its product was archived): the merchant can still open one; dunning goes on.
      if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure)) throw err;
      upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: 'renewal_checkout_refused' }]);
    }
  }

  async function exhaustDunning(): Promise<void> {
    // Every retry was refused (or a hard decline ended dunning): unpaid or canceled, per organization.
    const exhausted = await records.changeSubscription({
      subscriptionId,
      change: 'dunning_exhausted',
      exhaustedStatus: state.exhaustedStatus,
      at: nowIso(),
    });
    state.status = exhausted.status;
  }

  async function closePeriod(): Promise<void> {
    // The period is over (or, in dunning, the next retry is due): it ends with no further charge.
    const closed = await records.changeSubscription({
      subscriptionId,
      change: 'period_ended_canceled',
      at: nowIso(),
    });
    state.status = closed.status;
  }

  /** Reads the subscription again; true when a period was paid meanwhile (it moved on). */
  async function refreshed(): Promise<boolean> {
    const plan = await records.loadSubscription(subscriptionId);
    state.status = plan.status;
    state.renewalDelayMs = plan.renewalDelayMs;
    if (plan.periodNumber <= state.periodNumber) return false;
    state.periodNumber = plan.periodNumber;
    state.periodEnd = plan.currentPeriodEnd;
    // An upgrade checkout may bring a card and undoes a cancellation at period end.
    state.hasCard = plan.hasCard;
    state.cancelAtPeriodEnd = plan.cancelAtPeriodEnd;
    state.tryNumber = 1;
    state.firstFailureAt = null;
    return true;
  }
}
