import { condition, continueAsNew } from '@temporalio/workflow';
import {
  afterManualRenewalStep,
  DECIDING,
  manualChargeDueAt,
  nextManualRenewalStep,
  type ManualRenewalFacts,
  type ManualRenewalState,
} from '../domain/manual-renewals.ts';
import { deadlineTry, pastScheduleTry } from '../domain/subscriptions.ts';
import type { RenewalOutcome, SubscriptionWorkflow } from '../contracts/subscription.ts';
import { payments, records } from './subscription-activity-proxies.ts';
import { SUBSCRIPTION_HAS_ENDED } from './subscription-handlers.ts';
import type { SubscriptionRun } from './subscription-run.ts';
import { mandateSwitchDue, switchToMandate } from './subscription-mandate-switch.ts';

/**
 * Manual billing (`recurrence_billing: manual`): this workflow renews. At each period's end it charges
 * the saved card (or, with none, opens the renewal checkout), retries a refusal on the organization's
 * dunning schedule, and records the paid renewal and upgrade checkouts put to it between its own
 * steps. One run per period: the history stays short however long the subscription lives. Returns
 * when the subscription ends. The loop is the state machine of domain/manual-renewals.ts: it asks
 * what comes next, does it, and moves on to the state the step leads to.
 */
export async function manualPeriods(run: SubscriptionRun): Promise<void> {
  let at: ManualRenewalState = DECIDING;
  for (;;) {
    await switchToMandate(run); // a mandate the payer approved bills from the next period (continues as new)
    const step = nextManualRenewalStep(at, factsOf(run));
    at = afterManualRenewalStep(step);
    switch (step.do) {
      case 'record_sales':
        await condition(() => run.flags.changing === 0);
        if (await run.oneAtATime(() => recordSales(run))) {
          await condition(() => run.flags.changing === 0);
          await moveOn(run);
        }
        break;
      case 'exhaust_dunning':
        await run.exhaustDunning();
        break;
      case 'wait':
        await waitUntil(run, step.until);
        break;
      case 'end':
        return;
      case 'close_period':
        return run.closePeriod();
      case 'ask_without_card':
        await unpaidWithoutCard(run);
        break;
      case 'charge':
        if (await run.oneAtATime(() => renew(run))) {
          await condition(() => run.flags.changing === 0);
          if (run.ended()) return;
          await moveOn(run);
        }
        break;
    }
  }
}

/** What the state machine decides on (domain/manual-renewals.ts), read from the run. */
function factsOf(run: SubscriptionRun): ManualRenewalFacts {
  const { state } = run;
  return {
    salesWaiting: run.sales.length > 0,
    ended: run.ended(),
    status: state.status,
    cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    hasCard: state.hasCard,
    due: manualChargeDueAt(state, run.clock.onTestClock()),
    now: run.clock.now(),
  };
}

/**
 * The subscription entered its next period: the run continues as new once the Updates under way have
 * returned, unless it ended or a checkout's sale came meanwhile (recorded, or refused, first).
 */
async function moveOn(run: SubscriptionRun): Promise<void> {
  if (run.ended()) return;
  await run.untilHandlersDone();
  if (run.sales.length > 0) return;
  await continueAsNew<SubscriptionWorkflow>({ subscriptionId: run.subscriptionId, state: run.state });
}

/** Waits until `when` (or forever), a sale, a change, the test clock or the end. */
async function waitUntil(run: SubscriptionRun, when: number | null): Promise<void> {
  run.clock.moved = false;
  await run.clock.sleepUntil(
    when,
    () => run.ended() || run.clock.moved || run.sales.length > 0 || mandateSwitchDue(run),
  );
  await condition(() => run.flags.changing === 0);
}

/** One try at the next period's charge; true when the period was paid. */
async function renew(run: SubscriptionRun): Promise<boolean> {
  const { state } = run;
  const charge = { subscriptionId: run.subscriptionId, period: state.periodNumber + 1, tryNumber: state.tryNumber };
  const outcome: RenewalOutcome = await payments.chargeRenewal(charge);
  const at = run.clock.nowIso();
  const paid = !outcome.refusal && (outcome.payment === null || outcome.payment.status === 'succeeded');
  if (paid) return run.paidPeriod(charge, outcome, at);
  await run.refusedPeriod(charge, outcome, at);
  return false;
}

/**
 * Manual billing with no card to charge (pix, boleto): at the period's end the renewal checkout is
 * opened for the customer and the subscription is past due; paid (the checkoutPaid Update) it moves
 * on, and at the deadline (the last dunning day) unpaid, dunning is over.
 */
async function unpaidWithoutCard(run: SubscriptionRun): Promise<void> {
  const { state } = run;
  if (state.firstFailureAt) {
    state.tryNumber = pastScheduleTry(state.retryDays); // the deadline passed
    return;
  }
  const at = run.clock.nowIso();
  await run.openRenewalCheckout(state.periodNumber + 1, at);
  const due = await records.changeSubscription({ subscriptionId: run.subscriptionId, change: 'payment_due', at });
  state.status = due.status;
  state.firstFailureAt = at;
  state.tryNumber = deadlineTry(state.retryDays); // next: the deadline
}

/**
 * Records the paid renewal and upgrade checkouts that came, in turn and never during a renewal: a
 * period is paid once, by the first. True when the subscription moved on to a period.
 */
async function recordSales(run: SubscriptionRun): Promise<boolean> {
  const { sales } = run;
  let moved = false;
  while (sales.length > 0) {
    const sale = sales.shift()!;
    const recorded = run.ended()
      ? { refused: SUBSCRIPTION_HAS_ENDED }
      : await records.recordCheckoutSale({
          ...sale.notice,
          subscriptionId: run.subscriptionId,
          at: run.clock.nowIso(),
        });
    if (recorded.refused !== undefined) {
      run.answer(sale, { accepted: false, reason: recorded.refused });
      continue;
    }
    run.state.status = recorded.status;
    run.movedTo(recorded);
    moved = true;
    run.answer(sale, { accepted: true });
  }
  return moved;
}
