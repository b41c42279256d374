import {
  ActivityFailure,
  condition,
  continueAsNew,
  log,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { PAYMENT_ISSUE } from '../domain/search-attributes.ts';
import { dunningRetryAt, GATEWAY_NOTICE_GRACE_MS, GATEWAY_RECHECK_MS } from '../domain/subscriptions.ts';
import { MISSING_RENEWAL, type SubscriptionRunState, type SubscriptionWorkflow } from '../contracts/subscription.ts';
import { payments, records } from './subscription-activity-proxies.ts';
import { voidPendingInvoices } from './subscription-invoices.ts';
import { isGatewayRefusal, type SubscriptionRun } from './subscription-run.ts';
import type { PaymentSummary } from '../domain/checkout.ts';

/**
 * The gateway-billed half of a subscription's workflow (`recurrence_billing: gateway`): the
 * gateway's recurrence charges, this only asks the gateway and records what it did
 * (docs/decisions/0032-gateway-billed-periods.md).
 */

/**
 * Gateway billing: the gateway's recurrence charges each period, never this workflow. At a
 * period's end (plus a grace) or on the gateway's notice, the gateway is asked what it did: a paid
 * period is entered (one run per period), a refusal makes the subscription past due, and the
 * gateway's own retries are looked for on the organization's dunning schedule until it is
 * exhausted. A period the gateway has not billed past the grace is flagged for operators
 * (PaymentIssue) and asked about daily. Returns when the subscription ends.
 */
export async function gatewayBilledPeriods(run: SubscriptionRun): Promise<void> {
  const { state, subscriptionId, flags } = run;
  let recheckAt: number | null = null;
  for (;;) {
    const checkAt = recheckAt ?? firstCheckAt(run);
    const scheduled = nextGatewayCheckAt(state, checkAt);
    if (scheduled === null && state.status === 'past_due') {
      await run.exhaustDunning();
      continue;
    }
    // Canceled at period end: the period closes at its end (in dunning, at the next check).
    const until = state.cancelAtPeriodEnd && !state.firstFailureAt ? Date.parse(state.periodEnd) : scheduled;
    if (await wake(run, until)) return;
    const due = until !== null && run.clock.now() >= until;
    if (state.cancelAtPeriodEnd && due) {
      await run.closePeriod();
      return;
    }
    if (!due && !flags.noticed) continue; // woken by a merchant's change: the times are worked out again
    flags.noticed = false;
    const charge = { subscriptionId, period: state.periodNumber + 1, tryNumber: state.tryNumber };
    if (due && sandboxRecurrence(run)) await billSandbox(charge);
    const found = await askGateway(charge);
    const at = run.clock.nowIso();
    const outcome = { amount: found.amount, currency: found.currency, payment: found.payment };
    if (found.state === 'paid') {
      const entered = await run.oneAtATime(async () => {
        if (!(await run.paidPeriod(charge, outcome, at))) return false;
        await settleBalance(run, charge.period, found.payment!, at);
        return true;
      });
      if (!entered) return;
      flagMissing(false);
      await condition(() => flags.changing === 0);
      if (run.ended()) return;
      await run.untilHandlersDone(); // a checkout's sale is refused at once here: none waits
      await continueAsNew<SubscriptionWorkflow>({ subscriptionId, state });
    }
    if (found.state === 'failed' && found.payment!.id !== state.lastGatewayCharge) {
      state.lastGatewayCharge = found.payment!.id;
      await run.refusedPeriod(charge, outcome, at);
    } else if (due && state.firstFailureAt) {
      state.tryNumber++; // the gateway did not try again by this check: the schedule moves on
    } else if (due) {
      flagMissing(run.clock.now() >= Date.parse(state.periodEnd) + GATEWAY_NOTICE_GRACE_MS);
      recheckAt = run.clock.now() + GATEWAY_RECHECK_MS;
    }
  }
}

/**
 * What the gateway did with the period; a refusal to say (a definite error of the call) is taken as
 * nothing billed yet, so the period is asked about again: no gateway answer ends the workflow.
 */
async function askGateway(charge: { subscriptionId: string; period: number; tryNumber: number }) {
  try {
    return await payments.reconcileGatewayPeriod(charge);
  } catch (err) {
    if (!isGatewayRefusal(err)) throw err;
    log.warn('The gateway refused to say how it billed the period', { period: charge.period, error: err.message });
    return { state: 'open' as const, amount: 0, currency: '', payment: null };
  }
}

/**
 * Settles the balance a plan change left (the gateway's recurrence bills its plan's price only). A
 * refusal of the call leaves the balance for the next period: it never stops the subscription.
 */
async function settleBalance(run: SubscriptionRun, period: number, payment: PaymentSummary, at: string) {
  try {
    await payments.settleGatewayBalance({ subscriptionId: run.subscriptionId, period, payment, at });
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    log.warn('The balance was not settled with this period; the next one settles it', { period, error: err.message });
  }
}

/**
 * A subscription on a test clock drives the sandbox gateway's recurrence
 * (docs/decisions/0032-gateway-billed-periods.md): the period is billed on its due date and each
 * retry day, as a live gateway bills on its own calendar, so the advance renews it and runs its dunning.
 */
function sandboxRecurrence(run: SubscriptionRun): boolean {
  return run.clock.onTestClock();
}

/** The first time the gateway is asked about the period: its end (after the notice's grace, in real time). */
function firstCheckAt(run: SubscriptionRun): number {
  return Date.parse(run.state.periodEnd) + (sandboxRecurrence(run) ? 0 : GATEWAY_NOTICE_GRACE_MS);
}

/** The sandbox gateway bills the period's try; its refusal (say, of a cycle out of order) only leaves it unbilled. */
async function billSandbox(charge: { subscriptionId: string; period: number; tryNumber: number }): Promise<void> {
  try {
    await payments.billSandboxPeriod(charge);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    log.warn('The sandbox gateway did not bill the period', { period: charge.period, error: err.message });
  }
}

/** Marks the run for operators (PaymentIssue) while the gateway has not billed a period past the grace. */
function flagMissing(missing: boolean): void {
  const flagged = workflowInfo().typedSearchAttributes.get(PAYMENT_ISSUE) === MISSING_RENEWAL;
  if (missing && !flagged) upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: MISSING_RENEWAL }]);
  if (!missing && flagged) upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: null }]);
}

/** When the gateway is asked next; null when nothing is expected (unpaid, or dunning is over). */
function nextGatewayCheckAt(state: SubscriptionRunState, checkAt: number): number | null {
  if (state.status === 'unpaid') return null;
  if (!state.firstFailureAt) return checkAt;
  return dunningRetryAt(new Date(state.firstFailureAt), state.tryNumber, state.retryDays)?.getTime() ?? null;
}

/** Waits until `when` (or forever), a notice, a change or the end; true when the subscription ended. */
async function wake(run: SubscriptionRun, when: number | null): Promise<boolean> {
  const { flags } = run;
  flags.woken = false;
  // A notice that came while an activity ran (after the last reconciliation began) wakes it at once.
  const stop = () => run.ended() || flags.woken || flags.noticed;
  await run.clock.sleepUntil(when, stop);
  await condition(() => flags.changing === 0);
  return run.ended();
}

/**
 * The subscription ended: the gateway's recurrence is stopped, and a period it billed on the way
 * (the cancellation raced its charge) is recorded and refunded, never entered.
 */
export async function stopGatewayRecurrence(run: SubscriptionRun): Promise<void> {
  const { state, subscriptionId } = run;
  try {
    await payments.cancelGatewaySubscription(subscriptionId);
  } catch (err) {
    // Refused outright (say, ended there already): what it billed meanwhile is still looked for below.
    if (!isGatewayRefusal(err)) throw err;
    log.warn('The gateway refused to stop its recurrence', { error: err.message });
  }
  await voidPendingInvoices(subscriptionId);
  const charge = { subscriptionId, period: state.periodNumber + 1, tryNumber: state.tryNumber };
  const { state: billed, payment, ...money } = await askGateway(charge);
  // Not billed, or given back already (a revocation that raced the period's recording).
  if (billed !== 'paid' || !payment || payment.refundedAmount >= payment.capturedAmount) return;
  await records.recordRenewal({ ...charge, ...money, payment, at: run.clock.nowIso(), enter: false });
  await run.giveBack(charge, payment);
}
