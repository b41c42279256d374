import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import {
  LOCAL_RECORD_PATCH,
  type RenewalCharge,
  type RenewalOutcome,
  type SubscriptionActivities,
  type SubscriptionRunState,
} from '../contracts/subscription.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import { PLAN_CHANGE_DECLINED, PLAN_CHANGE_REFUSED, SUBSCRIPTION_ENDED } from '../domain/subscriptions.ts';

/**
 * What the subscription workflow (workflows/subscription.ts) and its gateway-billed half
 * (workflows/subscription-gateway.ts) share: the activities they run, with their retry policies, and
 * the run's context the two halves work on.
 */

/** Database steps: retried until they succeed. */
export const records = proxyActivities<SubscriptionActivities>({
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
const localRecords = proxyLocalActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['SubscriptionNotFound'] },
});
export const renewalRecords = (): Pick<SubscriptionActivities, 'recordRenewal'> =>
  patched(LOCAL_RECORD_PATCH) ? localRecords : records;

/**
 * The renewal charge: retried with the same key (period and try) until the gateway answers, so a
 * retry can never charge twice; a definite refusal of the call itself is not retried.
 */
export const payments = proxyActivities<SubscriptionActivities>({
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
  /** Runs a writing step once the steps before it are done (workflows/subscription.ts). */
  oneAtATime<T>(step: () => Promise<T>): Promise<T>;
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

/**
 * A subscription as its events carry it and as its workflow's Updates answer: the API's record
 * (api/schemas/subscriptions.ts) but for workflow_url, which only the API knows how to build.
 */
