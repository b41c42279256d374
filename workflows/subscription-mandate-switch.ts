import { continueAsNew } from '@temporalio/workflow';
import type { SubscriptionWorkflow } from '../contracts/subscription.ts';
import { brasiliaDate, chargeSendDate, periodDueDate } from '../domain/pix-automatico.ts';
import { records } from './subscription-activity-proxies.ts';
import type { SubscriptionRun } from './subscription-run.ts';

/**
 * A manual subscription whose payer approved a mandate (decision 0098, workflows/mandate.ts) switches
 * to Pix Automático between its periods: the period paid stays paid, and the next is charged through
 * the mandate when its charge can still be sent in the window before its due date; otherwise that
 * period renews as before and the switch waits for the one after.
 */

/** The period end at which the mandate answered `later` (it starts after that period): not asked again until it moves. */
const laterAt = new WeakMap<SubscriptionRun, string>();

/** Whether the run should switch now: an approved mandate waits, the subscription is in good standing, in time. */
export function mandateSwitchDue(run: SubscriptionRun): boolean {
  const { state } = run;
  if (!state.mandateApproved || state.billing !== 'manual' || run.ended() || run.sales.length > 0) return false;
  if (state.cancelAtPeriodEnd || (state.status !== 'active' && state.status !== 'trialing')) return false;
  if (laterAt.get(run) === state.periodEnd) return false;
  const due = periodDueDate(Date.parse(state.periodEnd));
  return chargeSendDate(due, brasiliaDate(run.clock.now())) !== null;
}

/**
 * Adopts the approved mandate when due (mandateSwitchDue) and continues as new as a Pix Automático
 * subscription; returns when it did not switch (the mandate ended, or starts later: it waits).
 */
export async function switchToMandate(run: SubscriptionRun): Promise<void> {
  if (!mandateSwitchDue(run)) return;
  const { state, subscriptionId } = run;
  const dueDate = periodDueDate(Date.parse(state.periodEnd));
  const adopted = await run.oneAtATime(() =>
    records.adoptApprovedMandate({ subscriptionId, dueDate, at: run.clock.nowIso() }),
  );
  if (adopted === 'later') {
    laterAt.set(run, state.periodEnd); // the mandate bills a later period: the next renewal moves on first
    return;
  }
  state.mandateApproved = false;
  if (adopted !== 'switched') return;
  state.billing = 'pix_automatico';
  await run.untilHandlersDone();
  await continueAsNew<SubscriptionWorkflow>({ subscriptionId, state });
}
