import type { RecurrenceBilling } from './subscriptions.ts';
import { nextRenewalChargeAt, type SubscriptionStatus } from './subscriptions.ts';

/**
 * The manual renewals of a subscription (`recurrence_billing: manual`) as a state machine: the
 * subscription's workflow (workflows/subscription-manual.ts) asks `nextManualRenewalStep` what to do,
 * does it, and moves to the state the step leads to. Pure: everything it needs comes in `facts`.
 *
 * Two states: `deciding` what comes next, or `woken` from a wait for the charge due at `due` (a wait
 * ends at that time, or early for a paid checkout, a merchant's change, the test clock or the end).
 */
export type ManualRenewalState = { at: 'deciding' } | { at: 'woken'; due: number | null };

export const DECIDING: ManualRenewalState = { at: 'deciding' };

/** What the run knows when it asks. */
export interface ManualRenewalFacts {
  /** Paid renewal or upgrade checkouts wait to be recorded. */
  salesWaiting: boolean;
  /** Canceled, revoked or otherwise over: nothing more happens. */
  ended: boolean;
  status: SubscriptionStatus;
  cancelAtPeriodEnd: boolean;
  /** A card is kept to charge; without one the renewal checkout is the way to pay. */
  hasCard: boolean;
  /** When the next charge falls due now (manualChargeDueAt); null when none does. */
  due: number | null;
  /** The subscription's time (its test clock's, in the sandbox). */
  now: number;
}

/** What the workflow does next. */
export type ManualRenewalStep =
  /** Record the checkouts' sales, one at a time with the run's other writing steps. */
  | { do: 'record_sales' }
  /** Past due with no try left: dunning is over (unpaid or canceled, per organization). */
  | { do: 'exhaust_dunning' }
  /** Wait until `until` (or, null, until something happens); then the state is `woken`. */
  | { do: 'wait'; until: number | null }
  /** The subscription ended: the manual renewals are over. */
  | { do: 'end' }
  /** Canceled at period end, and the period is over: it closes with no charge. */
  | { do: 'close_period' }
  /** No card: the renewal checkout is opened (or its deadline passed). */
  | { do: 'ask_without_card' }
  /** One try at the next period's charge on the kept card. */
  | { do: 'charge' };

/** The next step from `state`; every step but `wait` leads back to `deciding`. */
export function nextManualRenewalStep(state: ManualRenewalState, facts: ManualRenewalFacts): ManualRenewalStep {
  if (state.at === 'deciding') {
    if (facts.salesWaiting) return { do: 'record_sales' };
    if (facts.due === null && facts.status === 'past_due') return { do: 'exhaust_dunning' };
    return { do: 'wait', until: facts.due };
  }
  if (facts.ended) return { do: 'end' };
  // Woken by a sale, a change or the test clock short of the due time: decided again, with the facts as they now are.
  if (facts.salesWaiting || state.due === null || facts.now < state.due) return nextManualRenewalStep(DECIDING, facts);
  if (facts.cancelAtPeriodEnd) return { do: 'close_period' };
  return facts.hasCard ? { do: 'charge' } : { do: 'ask_without_card' };
}

/** The state a step leads to. */
export function afterManualRenewalStep(step: ManualRenewalStep): ManualRenewalState {
  return step.do === 'wait' ? { at: 'woken', due: step.until } : DECIDING;
}

/**
 * When the workflow charges a manual subscription next; null when it does not (unpaid, or dunning is
 * over). One on a test clock renews at its period's end: the clock shows what falls due then.
 */
export function manualChargeDueAt(
  s: {
    billing: RecurrenceBilling;
    status: SubscriptionStatus;
    periodEnd: string;
    firstFailureAt: string | null;
    tryNumber: number;
    retryDays: readonly number[];
    renewalDelayMs?: number;
  },
  testClock: boolean,
): number | null {
  if (s.billing !== 'manual' || s.status === 'unpaid') return null;
  return nextRenewalChargeAt({ ...s, renewalDelayMs: s.renewalDelayMs ?? 0, testClock });
}
