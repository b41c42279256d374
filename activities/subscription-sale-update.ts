import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  checkoutPaidUpdate,
  subscriptionWorkflowId,
  type CheckoutPaidNotice,
  type CheckoutSaleVerdict,
} from '../contracts/subscription.ts';
import type { CheckoutActivities } from '../contracts/checkout.ts';
import type { Orm } from '../db/orm.ts';
import { checkoutChargeRecorded } from '../db/subscription/charges.ts';

/**
 * A paid renewal or upgrade checkout's sale put to its subscription's workflow, the subscription's
 * only writer (docs/decisions/0060-renewal-sale-settled-once.md): one Workflow Update whose result is
 * the verdict. The Update's id is the checkout's, so a retried call attaches to the same Update (or
 * gets its recorded answer) instead of putting the sale twice.
 */
export function createSubscriptionSaleUpdateActivities(deps: { orm: Orm; temporal?: Client }) {
  return {
    async putSaleToSubscription(input: CheckoutPaidNotice & { subscriptionId: string }): Promise<CheckoutSaleVerdict> {
      const { subscriptionId, ...notice } = input;
      const { temporal } = deps;
      // Retried (not refused): a worker that has no client leaves the sale to one that has.
      if (!temporal) throw ApplicationFailure.retryable('This worker cannot reach subscriptions', 'NoTemporalClient');
      const verdict = await askSubscription(temporal, subscriptionId, notice);
      // Refused, yet recorded: a retry whose first answer was lost, refused by a run that has ended or is
      // closing since. The sale stands, so its capture must stay: the same answer as the first time.
      if (!verdict.accepted && (await checkoutChargeRecorded(deps.orm.em.fork(), notice.checkoutId))) {
        return { accepted: true };
      }
      return verdict;
    },
  } satisfies Partial<CheckoutActivities>;
}

async function askSubscription(
  temporal: Client,
  subscriptionId: string,
  notice: CheckoutPaidNotice,
): Promise<CheckoutSaleVerdict> {
  const handle = temporal.workflow.getHandle(subscriptionWorkflowId(subscriptionId));
  try {
    // The call (a long poll for the Update's outcome) ends with the attempt; the retry asks again.
    return await temporal.withAbortSignal(Context.current().cancellationSignal, () =>
      handle.executeUpdate(checkoutPaidUpdate, { args: [notice], updateId: notice.checkoutId }),
    );
  } catch (err) {
    // Its workflow has ended (or never ran): nothing records the sale, whose capture goes back.
    if (err instanceof WorkflowNotFoundError) {
      return { accepted: false, reason: 'the subscription has no running workflow' };
    }
    throw err;
  }
}
