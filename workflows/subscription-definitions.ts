import {
  defineQuery,
  defineSignal,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { RenewalCharge, RenewalOutcome } from '../activities/subscriptions.ts';
import type { SubscriptionRecord } from '../db/subscription-records.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import {
  PLAN_CHANGE_DECLINED,
  PLAN_CHANGE_REFUSED,
  SUBSCRIPTION_ENDED,
  type DunningExhaustedStatus,
  type SubscriptionAction,
  type SubscriptionStatus,
} from '../domain/subscriptions.ts';

/**
 * What the subscription workflow (workflows/subscription.ts) and its gateway-billed half
 * (workflows/subscription-gateway.ts) share: the state one run hands the next, the messages the API
 * sends, the activity proxies, and the run's context the two halves work on.
 */

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
  /** Gateway billing: the charge of the refused try recorded last, so a try is recorded once. */
  lastGatewayCharge?: string | null;
  /** How long after periodEnd the renewal is tried (the deployment's renewal spread); absent: 0. */
  renewalDelayMs?: number;
  /** Sandbox test clock: how far this subscription's time runs ahead of real time (ms). */
  clockOffsetMs?: number;
  /** Sandbox test clock: the time it was moved to, which the workflow reaches step by step (ISO). */
  clockTarget?: string | null;
}

export interface SubscriptionWorkflowInput {
  subscriptionId: string;
  /** Absent on the first run: the run reads the subscription. */
  state?: SubscriptionRunState;
}

/** A merchant's change; answers with the subscription as it was written. */
export const changeSubscriptionUpdate = defineUpdate<SubscriptionRecord, [SubscriptionAction]>('changeSubscription');
/**
 * Sandbox test clock: moves this subscription's time forward to `to`; renewals, retries, trial ends
 * and deadlines due by then happen at once, as the workflow works through them. Answers the new time.
 */
export const advanceClockUpdate = defineUpdate<{ clock: string }, [{ to: string }]>('advanceClock');
export const INVALID_CLOCK = 'InvalidClock';

/** A merchant's plan change (another recurring price); answers with the subscription as written. */
export const changePriceUpdate = defineUpdate<SubscriptionRecord, [{ priceId: string }]>('changePrice');
/** A merchant's metadata, replaced whole; answers with the subscription as written. */
export const changeMetadataUpdate = defineUpdate<SubscriptionRecord, [{ metadata: Record<string, unknown> }]>(
  'changeMetadata',
);
export const subscriptionStateQuery = defineQuery<SubscriptionRunState>('subscriptionState');
/** A renewal checkout paid a period (its sale moved the subscription): the workflow reads it again. */
export const renewalPaidSignal = defineSignal('renewalPaid');
/** The gateway notified a change of one of this subscription's invoices: the workflow asks the gateway. */
export const gatewayInvoiceSignal = defineSignal('gatewayInvoice');

/** Runs from before the workflow opened renewal checkouts itself replay without them. */
export const RENEWAL_CHECKOUT_PATCH = 'renewal-checkout-by-workflow';
/** Runs from before it entered gateway-billed periods without settling the subscription's balance. */
export const GATEWAY_BALANCE_PATCH = 'gateway-balance-settlement';
export const LOCAL_RECORD_PATCH = 'renewal-recorded-locally';

/** PaymentIssue of a run whose gateway has not billed a period past the grace. */
export const MISSING_RENEWAL = 'gateway_renewal_missing';

/** Database steps: retried until they succeed. */
export const records = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['SubscriptionNotFound', 'RenewalCheckoutRefused'],
  },
});

/**
 * A renewal's record as a local activity: run by the worker inside the workflow task that got the
 * charge's answer, so a renewal costs Temporal one activity and one workflow task less (a renewal storm
 * is mostly the server's work). It is idempotent by the charge's try, so a workflow task retried after
 * a crash records it once. Runs recorded before it was local replay with the remote one.
 */
const localRecords = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['SubscriptionNotFound'] },
});
export const renewalRecords = (): Pick<Activities, 'recordRenewal'> =>
  patched(LOCAL_RECORD_PATCH) ? localRecords : records;

/**
 * The renewal charge: retried with the same key (period and try) until the gateway answers, so a
 * retry can never charge twice; a definite refusal of the call itself is not retried.
 */
export const payments = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '2 seconds',
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: [
      GATEWAY_REFUSAL,
      'NoSavedCard',
      'SubscriptionNotFound',
      'NotGatewayBilled',
      SUBSCRIPTION_ENDED,
      PLAN_CHANGE_REFUSED,
      PLAN_CHANGE_DECLINED,
    ],
  },
});

/** One run's context: its state, the flags its handlers set, its clock and the steps both halves use. */
export interface SubscriptionRun {
  readonly subscriptionId: string;
  readonly state: SubscriptionRunState;
  /** Set by handlers, reset by the loops. */
  readonly flags: { noticed: boolean; woken: boolean; changing: number };
  /** The subscription's time (its test clock in the sandbox). */
  now(): number;
  nowIso(): string;
  ended(): boolean;
  revoked(): boolean;
  sleepUntil(when: number | null, stop: () => boolean): Promise<void>;
  paidPeriod(charge: RenewalCharge, outcome: RenewalOutcome, at: string): Promise<boolean>;
  refusedPeriod(charge: RenewalCharge, outcome: RenewalOutcome, at: string): Promise<void>;
  exhaustDunning(): Promise<void>;
  closePeriod(): Promise<void>;
}

/** A run's state read from the subscription (a run started without carried state: its first). */
export async function initialState(subscriptionId: string): Promise<SubscriptionRunState> {
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
