import {
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { RenewalOutcome } from '../activities/subscriptions.ts';
import type { SubscriptionRecord } from '../db/subscription-records.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import {
  dunningRetryAt,
  isHardDecline,
  SUBSCRIPTION_ACTIONS,
  SUBSCRIPTION_ENDED,
  type SubscriptionAction,
  type DunningExhaustedStatus,
  type SubscriptionStatus,
} from '../domain/subscriptions.ts';

export { subscriptionWorkflowId } from '../domain/subscriptions.ts';

/** What one run hands the next (continue-as-new once per period): the subscription's durable state. */
export interface SubscriptionRunState {
  status: SubscriptionStatus;
  /** The period paid last (0: in the trial); the next charge is for periodNumber + 1. */
  periodNumber: number;
  /** When the current period ends (ISO): the next renewal is due then. */
  periodEnd: string;
  cancelAtPeriodEnd: boolean;
  /** Who charges the periods: this workflow (manual) or the gateway's own recurrence. */
  billing: 'gateway' | 'manual';
  /** Manual renewals charge the saved card; without one, renewal checkouts pay. */
  hasCard: boolean;
  /** The try of the next charge of period periodNumber + 1 (1: the renewal itself; more: dunning). */
  tryNumber: number;
  /** When the period's first try was refused (ISO); dunning retries are counted from it. */
  firstFailureAt: string | null;
  retryDays: number[];
  exhaustedStatus: DunningExhaustedStatus;
}

export interface SubscriptionWorkflowInput {
  subscriptionId: string;
  /** Absent on the first run: the run reads the subscription. */
  state?: SubscriptionRunState;
}

/** A merchant's change; answers with the subscription as it was written. */
export const changeSubscriptionUpdate = defineUpdate<SubscriptionRecord, [SubscriptionAction]>('changeSubscription');
export const subscriptionStateQuery = defineQuery<SubscriptionRunState>('subscriptionState');
/** A renewal checkout paid a period (its sale moved the subscription): the workflow reads it again. */
export const renewalPaidSignal = defineSignal('renewalPaid');

/** Database steps: retried until they succeed. */
const records = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['SubscriptionNotFound'] },
});

/**
 * The renewal charge: retried with the same key (period and try) until the gateway answers, so a
 * retry can never charge twice; a definite refusal of the call itself is not retried.
 */
const payments = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '2 seconds',
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [GATEWAY_REFUSAL, 'NoSavedCard', 'SubscriptionNotFound'],
  },
});

/**
 * A subscription's whole life, one period per run: it waits for the period's end, renews (charging
 * the saved card), retries a refused renewal on the organization's dunning schedule, and ends when
 * canceled at period end or revoked. Merchant changes arrive as Updates; a revocation stops every
 * pending charge at once, and a charge that raced it is refunded.
 */
export async function subscriptionWorkflow(input: SubscriptionWorkflowInput): Promise<SubscriptionStatus> {
  const { subscriptionId } = input;
  // Carried, or read below (until then `ready` is false): the handlers are set before that read, so an
  // Update that comes with the start is not refused.
  let state = input.state as SubscriptionRunState;
  let ready = false;
  let revoked = false;
  /** Updates waiting for their database step; renewals wait for them, so the two never interleave. */
  let changing = 0;

  /** A renewal checkout was paid: the subscription is read again before anything is charged. */
  let paidElsewhere = false;

  setHandler(subscriptionStateQuery, () => ({ ...state }));
  setHandler(renewalPaidSignal, () => {
    paidElsewhere = true;
  });
  setHandler(
    changeSubscriptionUpdate,
    async (action) => {
      changing++;
      try {
        await condition(() => ready);
        const at = new Date().toISOString();
        if (action === 'revoke') {
          revoked = true;
          const record = await records.changeSubscription({ subscriptionId, change: 'revoked', at });
          state.status = record.status;
          return record;
        }
        const cancel = action === 'cancel_at_period_end';
        const record = await records.setCancelAtPeriodEnd({ subscriptionId, cancel, at });
        state.cancelAtPeriodEnd = cancel;
        return record;
      } finally {
        changing--;
      }
    },
    {
      validator: (action) => {
        if (!SUBSCRIPTION_ACTIONS.includes(action)) {
          throw ApplicationFailure.nonRetryable(`Unknown action ${String(action)}`, 'InvalidAction');
        }
        if (ready && (state.status === 'canceled' || revoked)) {
          throw ApplicationFailure.nonRetryable('The subscription has ended', SUBSCRIPTION_ENDED);
        }
      },
    },
  );

  if (!input.state) state = await initialState(subscriptionId);
  ready = true;

  const ended = () => revoked || state.status === 'canceled';
  /** Waits until `when` (or forever), or until the subscription ends; true when it ended. */
  const interrupted = () => ended() || paidElsewhere;
  const waitUntil = async (when: number | null) => {
    if (when === null) await condition(interrupted);
    else await condition(interrupted, Math.max(when - Date.now(), 1));
    await condition(() => changing === 0);
    return ended();
  };

  for (;;) {
    const due = nextChargeAt();
    if (due === null && state.status === 'past_due') {
      // Every retry was refused (or a hard decline ended dunning): unpaid or canceled, per organization.
      const exhausted = await records.changeSubscription({
        subscriptionId,
        change: 'dunning_exhausted',
        exhaustedStatus: state.exhaustedStatus,
        at: new Date().toISOString(),
      });
      state.status = exhausted.status;
      continue;
    }
    if (await waitUntil(due)) break;
    if (paidElsewhere) {
      paidElsewhere = false;
      if (await refreshed()) await continueAsNew<typeof subscriptionWorkflow>({ subscriptionId, state });
      continue;
    }
    if (state.cancelAtPeriodEnd) {
      // The period is over (or, in dunning, the next retry is due): it ends with no further charge.
      const closed = await records.changeSubscription({
        subscriptionId,
        change: 'period_ended_canceled',
        at: new Date().toISOString(),
      });
      state.status = closed.status;
      break;
    }
    if (await renew()) {
      await condition(() => changing === 0);
      if (ended()) break;
      // One run per period: the history stays short however long the subscription lives.
      await continueAsNew<typeof subscriptionWorkflow>({ subscriptionId, state });
    }
  }
  await condition(() => changing === 0);
  return state.status;

  /**
   * When this workflow charges next; null when it does not: the gateway bills the periods, no card
   * is saved (pix, boleto: renewal checkouts pay), the subscription is unpaid, or dunning is over.
   */
  function nextChargeAt(): number | null {
    if (state.billing !== 'manual' || !state.hasCard || state.status === 'unpaid') return null;
    if (!state.firstFailureAt) return Date.parse(state.periodEnd);
    return dunningRetryAt(new Date(state.firstFailureAt), state.tryNumber, state.retryDays)?.getTime() ?? null;
  }

  /** One try at the next period's charge; true when the period was paid. */
  async function renew(): Promise<boolean> {
    const charge = { subscriptionId, period: state.periodNumber + 1, tryNumber: state.tryNumber };
    const outcome: RenewalOutcome = await payments.chargeRenewal(charge);
    if (outcome.paidAlready) return refreshed();
    const at = new Date().toISOString();
    const paid = outcome.payment === null || outcome.payment.status === 'succeeded';
    if (paid) {
      // Revoked meanwhile: the payment is recorded, but the period is not entered (the money goes back below).
      const recorded = await records.recordRenewal({ ...charge, ...outcome, at, enter: !revoked });
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
      return true;
    }
    const reason = outcome.payment?.declineReason ?? 'card_declined';
    state.status = await records.recordRenewalFailure({ ...charge, ...outcome, declineReason: reason, at });
    state.firstFailureAt ??= at;
    // A hard decline skips the remaining retries: the next try is past the schedule.
    state.tryNumber = isHardDecline(reason) ? state.retryDays.length + 2 : state.tryNumber + 1;
    return false;
  }

  /** Reads the subscription again; true when a period was paid meanwhile (it moved on). */
  async function refreshed(): Promise<boolean> {
    const plan = await records.loadSubscription(subscriptionId);
    state.status = plan.status;
    if (plan.periodNumber <= state.periodNumber) return false;
    state.periodNumber = plan.periodNumber;
    state.periodEnd = plan.currentPeriodEnd;
    state.tryNumber = 1;
    state.firstFailureAt = null;
    return true;
  }
}

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
  };
}
