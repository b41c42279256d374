import { condition, continueAsNew } from '@temporalio/workflow';
import type { GatewayMandateAttempt, MandateCycle } from '../contracts/pix-automatico.ts';
import type { SubscriptionWorkflow } from '../contracts/subscription.ts';
import {
  brasiliaDate,
  brasiliaTime,
  CHARGE_WINDOW_MISSED,
  chargeSendDate,
  cycleDueDate,
  isChargeFinal,
  isMandateFinal,
  isRetryableFailure,
  periodDueDate,
  READ_HOUR,
  REREAD_MS,
  retryDates,
  SEND_HOUR,
  attemptFailureReason,
} from '../domain/pix-automatico.ts';
import { payments, records } from './subscription-activity-proxies.ts';
import type { SubscriptionRun } from './subscription-run.ts';

/**
 * Pix Automático billing (`recurrence_billing: pix_automatico`, decision 0096): this workflow renews
 * through the buyer's mandate. For each period it sends the charge inside its window before the due
 * date, waits for the payer's bank to settle it (the gateway's notice, or the evening of the settlement
 * day), asks for the later-day retries the mandate's policy allows (never into the next period), and
 * records each refused attempt with its reason on the dunning timeline. A paid charge enters the period
 * (one run per period, as the other halves); a charge that cannot be paid, or a mandate the payer
 * revoked, ends dunning as a hard decline does. Returns when the subscription ends.
 */
export async function pixAutomaticoPeriods(run: SubscriptionRun): Promise<void> {
  for (;;) {
    if (run.ended()) return;
    const { state } = run;
    if (state.cancelAtPeriodEnd || state.status === 'unpaid') {
      // Nothing more is charged: the period runs out (or, unpaid, the merchant decides).
      await waitHearing(run, state.status === 'unpaid' ? null : Date.parse(state.periodEnd));
      if (state.cancelAtPeriodEnd && !run.ended() && run.clock.now() >= Date.parse(state.periodEnd)) {
        return run.closePeriod();
      }
      continue;
    }
    if (await renew(run)) {
      await condition(() => run.flags.changing === 0);
      if (run.ended()) return;
      await run.untilHandlersDone();
      await continueAsNew<SubscriptionWorkflow>({ subscriptionId: run.subscriptionId, state: run.state });
    }
  }
}

/** One period's charge through the mandate, from its send day to paid or given up; true when paid. */
async function renew(run: SubscriptionRun): Promise<boolean> {
  const { state, subscriptionId } = run;
  const period = state.periodNumber + 1;
  const dueDate = periodDueDate(Date.parse(state.periodEnd));
  const sendOn = chargeSendDate(dueDate, brasiliaDate(run.clock.now()));
  if (sendOn === null) return refused(run, period, 1, CHARGE_WINDOW_MISSED, true);
  await waitHearing(run, brasiliaTime(sendOn, SEND_HOUR));
  if (run.ended() || state.cancelAtPeriodEnd || run.clock.now() < brasiliaTime(sendOn, SEND_HOUR)) return false;

  let cycle = await run.oneAtATime(() => payments.sendMandateCharge({ subscriptionId, period, dueDate }));
  for (;;) {
    if (!cycle.sent) return refused(run, period, 1, cycle.refusal, true);
    if (cycle.status === 'completed' && cycle.payment) {
      const charge = { subscriptionId, period, tryNumber: cycle.attempts.length };
      const outcome = { amount: cycle.amount, currency: cycle.currency, payment: cycle.payment };
      return run.oneAtATime(() => run.paidPeriod(charge, outcome, run.clock.nowIso()));
    }
    const attempt = cycle.attempts.at(-1);
    if (attempt && isSettled(attempt)) {
      const reason = attemptFailureReason(attempt);
      const retry = isRetryableFailure(attempt) ? nextRetry(run, dueDate, cycle) : null;
      await refused(run, period, cycle.attempts.length, reason, retry === null);
      if (retry === null) return false;
      cycle = await payments.retryMandateCharge({
        subscriptionId,
        period,
        retry: cycle.retriesRequested + 1,
        settlementDate: retry,
      });
      continue;
    }
    if (isChargeFinal(cycle.status) || isMandateFinal(cycle.mandateStatus)) {
      return refused(run, period, Math.max(cycle.attempts.length, 1), `charge_${cycle.status}`, true);
    }
    // Scheduled: read on the evening of its settlement day, or when the gateway says it moved.
    const settles = attempt?.settlementDate ?? dueDate;
    const readAt = Math.max(brasiliaTime(settles, READ_HOUR), run.clock.now() + (run.flags.noticed ? 0 : REREAD_MS));
    run.flags.noticed = false;
    await waitUntil(run, readAt, () => run.flags.noticed);
    if (run.ended()) return false;
    cycle = await payments.readMandateCharge({ subscriptionId, period, asOf: brasiliaDate(run.clock.now()) });
  }
}

/**
 * The settlement date of the next later-day retry the mandate allows for this period's charge: the
 * policy's next date (domain retryDates: at most three, within seven days, never into the next period,
 * whose charge is due one periodicity later), if it is still ahead; null when none is left.
 */
function nextRetry(run: SubscriptionRun, dueDate: string, cycle: Extract<MandateCycle, { sent: true }>): string | null {
  if (isChargeFinal(cycle.status) || isMandateFinal(cycle.mandateStatus)) return null;
  const dates = retryDates(dueDate, cycleDueDate(dueDate, cycle.periodicity, 2), cycle.retryPolicy);
  const next = dates[cycle.retriesRequested];
  return next !== undefined && next > brasiliaDate(run.clock.now()) ? next : null;
}

const isSettled = (attempt: GatewayMandateAttempt) =>
  attempt.status === 'rejected' || attempt.status === 'expired' || attempt.status === 'cancelled';

/**
 * A refused attempt on the dunning timeline, with its reason (the subscription is past due); the last
 * one (`final`: no retry left) ends dunning, unpaid or canceled per the organization.
 */
async function refused(run: SubscriptionRun, period: number, tryNumber: number, reason: string, final: boolean) {
  const { state, subscriptionId } = run;
  const at = run.clock.nowIso();
  const outcome = { amount: 0, currency: '', payment: null, refusal: reason };
  state.status = await records.recordRenewalFailure({
    subscriptionId,
    period,
    tryNumber,
    ...outcome,
    declineReason: reason,
    at,
  });
  state.firstFailureAt ??= at;
  if (final) await run.exhaustDunning();
  return false;
}

/**
 * Waits as waitUntil does, and writes the mandate as the gateway has it whenever a notice says it moved
 * meanwhile (a payer's revocation shows at once, not at the next charge).
 */
async function waitHearing(run: SubscriptionRun, when: number | null): Promise<void> {
  run.flags.noticed = false;
  await waitUntil(run, when, () => run.flags.noticed);
  while (run.flags.noticed && !run.ended()) {
    run.flags.noticed = false;
    await records.syncSubscriptionMandate(run.subscriptionId);
    await waitUntil(run, when, () => run.flags.noticed);
  }
}

/**
 * Waits until `when` (or forever), the end, a cancellation at period end or `also`: a move of the test
 * clock short of `when` only shortens the wait, which goes on from the new time.
 */
async function waitUntil(run: SubscriptionRun, when: number | null, also: () => boolean = () => false) {
  const done = () => run.ended() || also() || (when !== null && run.clock.now() >= when);
  const cancelling = run.state.cancelAtPeriodEnd;
  while (!done() && run.state.cancelAtPeriodEnd === cancelling) {
    run.clock.moved = false;
    await run.clock.sleepUntil(when, () => done() || run.clock.moved || run.state.cancelAtPeriodEnd !== cancelling);
  }
  await condition(() => run.flags.changing === 0);
}
