import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { SubscriptionActivities } from '../contracts/subscription.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import {
  CARD_CHANGE_REFUSED,
  PLAN_CHANGE_DECLINED,
  PLAN_CHANGE_REFUSED,
  SUBSCRIPTION_ENDED,
} from '../domain/subscriptions.ts';

/** The activities the subscription workflow runs (workflows/subscription*.ts), with their retry policies. */

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
 * a crash records it once.
 */
export const renewalRecords = proxyLocalActivities<Pick<SubscriptionActivities, 'recordRenewal'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['SubscriptionNotFound'] },
});

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
      'SubscriptionNotFound',
      'NotGatewayBilled',
      SUBSCRIPTION_ENDED,
      PLAN_CHANGE_REFUSED,
      PLAN_CHANGE_DECLINED,
      CARD_CHANGE_REFUSED,
    ],
  },
});
