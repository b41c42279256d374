import { condition, continueAsNew } from '@temporalio/workflow';
import { deadlineTry, nextRenewalChargeAt, pastScheduleTry } from '../domain/subscriptions.ts';
import type { RenewalOutcome, SubscriptionWorkflow } from '../contracts/subscription.ts';
import { payments, records } from './subscription-activity-proxies.ts';
import type { SubscriptionRun } from './subscription-run.ts';

/**
 * Manual billing (`recurrence_billing: manual`): this workflow renews. At each period's end it charges
 * the saved card (or, with none, opens the renewal checkout), retries a refusal on the organization's
 * dunning schedule, and records the paid renewal and upgrade checkouts it is told of between its own
 * steps. One run per period: the history stays short however long the subscription lives. Returns
 * when the subscription ends.
 */
export async function manualPeriods(run: SubscriptionRun): Promise<void> {
  const { state, flags, sales } = run;
  for (;;) {
    if (sales.length > 0) {
      await condition(() => flags.changing === 0);
      if (await run.oneAtATime(() => recordSales(run))) {
        await condition(() => flags.changing === 0);
        await moveOn(run);
      }
      continue;
    }
    const due = nextChargeAt(run);
    if (due === null && state.status === 'past_due') {
      await run.exhaustDunning();
      continue;
    }
    if (await waitUntil(run, due)) return;
    if (sales.length > 0) continue;
    // Woken by the test clock short of the due time: the wait is worked out again.
    if (due === null || run.clock.now() < due) continue;
    if (state.cancelAtPeriodEnd) return run.closePeriod();
    if (!state.hasCard) {
      await unpaidWithoutCard(run);
      continue;
    }
    if (await run.oneAtATime(() => renew(run))) {
      await condition(() => flags.changing === 0);
      if (run.ended()) return;
      await moveOn(run);
    }
  }
}

/**
 * The subscription entered its next period: the run continues as new, unless it ended or a checkout's
 * sale came meanwhile (recorded, or refused, first). Called once the Updates under way are done.
 */
async function moveOn(run: SubscriptionRun): Promise<void> {
  if (run.ended() || run.sales.length > 0) return;
  await continueAsNew<SubscriptionWorkflow>({ subscriptionId: run.subscriptionId, state: run.state });
}

/** Waits until `when` (or forever), a sale, a change or the end; true when the subscription ended. */
async function waitUntil(run: SubscriptionRun, when: number | null): Promise<boolean> {
  run.clock.moved = false;
  await run.clock.sleepUntil(when, () => run.ended() || run.clock.moved || run.sales.length > 0);
  await condition(() => run.flags.changing === 0);
  return run.ended();
}

/** When this workflow charges next; null when it does not: the subscription is unpaid, or dunning is over. */
function nextChargeAt(run: SubscriptionRun): number | null {
  const { state } = run;
  if (state.billing !== 'manual' || state.status === 'unpaid') return null;
  // A subscription on a test clock renews at its period's end: the clock shows what falls due then.
  return nextRenewalChargeAt({
    ...state,
    renewalDelayMs: state.renewalDelayMs ?? 0,
    testClock: run.clock.onTestClock(),
  });
}

/** One try at the next period's charge; true when the period was paid. */
async function renew(run: SubscriptionRun): Promise<boolean> {
  const { state } = run;
  const charge = { subscriptionId: run.subscriptionId, period: state.periodNumber + 1, tryNumber: state.tryNumber };
  const outcome: RenewalOutcome = await payments.chargeRenewal(charge);
  const at = run.clock.nowIso();
  const paid = outcome.payment === null || outcome.payment.status === 'succeeded';
  if (paid) return run.paidPeriod(charge, outcome, at);
  await run.refusedPeriod(charge, outcome, at);
  return false;
}

/**
 * Manual billing with no card to charge (pix, boleto): at the period's end the renewal checkout is
 * opened for the customer and the subscription is past due; paid (checkoutPaid) it moves on, and at
 * the deadline (the last dunning day) unpaid, dunning is over.
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
    const notice = sales.shift()!;
    const recorded = run.ended()
      ? { refused: 'the subscription has ended' }
      : await records.recordCheckoutSale({ ...notice, subscriptionId: run.subscriptionId, at: run.clock.nowIso() });
    if (recorded.refused !== undefined) {
      await run.answer(notice, { accepted: false, reason: recorded.refused });
      continue;
    }
    run.state.status = recorded.status;
    run.movedTo(recorded);
    moved = true;
    await run.answer(notice, { accepted: true });
  }
  return moved;
}
