import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  CARD_CHANGE_REFUSED,
  PLAN_CHANGE_DECLINED,
  PLAN_CHANGE_REFUSED,
  SUBSCRIPTION_ENDED,
  SUBSCRIPTION_ENDED_MESSAGE,
  type SubscriptionAction,
} from '../domain/subscriptions.ts';
import { conflict, unprocessable } from '../use-cases/errors.ts';
import {
  type SubscriptionRecord,
  advanceClockUpdate,
  changeMetadataUpdate,
  changePriceUpdate,
  changeSubscriptionUpdate,
  INVALID_CLOCK,
  replaceCardUpdate,
} from '../contracts/subscription.ts';

/**
 * Sends a change to the subscription's workflow as its Update and answers the subscription as the
 * workflow's activity wrote it. The merchant's PATCH and the customer portal's both come here, so the
 * workflow stays the one writer of a subscription and both answer an ended one alike (409).
 */
export async function sendSubscriptionChange(
  temporal: Client,
  workflowId: string,
  action: SubscriptionAction,
): Promise<SubscriptionRecord> {
  try {
    return await temporal.workflow.getHandle(workflowId).executeUpdate(changeSubscriptionUpdate, { args: [action] });
  } catch (err) {
    throw changeError(err);
  }
}

/**
 * Moves the subscription to another price through its workflow (proration and any charge happen
 * there); a refused price or a declined charge is a 422 and leaves the subscription as it was.
 */
export async function sendPriceChange(
  temporal: Client,
  workflowId: string,
  priceId: string,
): Promise<SubscriptionRecord> {
  try {
    return await temporal.workflow.getHandle(workflowId).executeUpdate(changePriceUpdate, { args: [{ priceId }] });
  } catch (err) {
    throw changeError(err);
  }
}

/** Replaces the subscription's metadata through its workflow, like every other change of it. */
export async function sendMetadataChange(
  temporal: Client,
  workflowId: string,
  metadata: Record<string, unknown>,
): Promise<SubscriptionRecord> {
  try {
    return await temporal.workflow.getHandle(workflowId).executeUpdate(changeMetadataUpdate, { args: [{ metadata }] });
  } catch (err) {
    throw changeError(err);
  }
}

/** The customer's new card for the renewals, kept by the subscription's workflow (the portal). */
export async function sendCardReplacement(
  temporal: Client,
  workflowId: string,
  browserToken: string,
): Promise<SubscriptionRecord> {
  try {
    return await temporal.workflow.getHandle(workflowId).executeUpdate(replaceCardUpdate, { args: [{ browserToken }] });
  } catch (err) {
    throw changeError(err);
  }
}

/** Moves the subscription's test clock forward (sandbox); answers the subscription's new time. */
export async function sendClockAdvance(temporal: Client, workflowId: string, to: string): Promise<{ clock: string }> {
  try {
    return await temporal.workflow.getHandle(workflowId).executeUpdate(advanceClockUpdate, { args: [{ to }] });
  } catch (err) {
    throw changeError(err);
  }
}

/** The workflow's refusal as the API's error; a workflow that has finished belongs to an ended subscription. */
function changeError(err: unknown): unknown {
  const ended = () => conflict(SUBSCRIPTION_ENDED_MESSAGE, 'A canceled subscription cannot be changed');
  if (err instanceof WorkflowNotFoundError) return ended();
  if (err instanceof WorkflowUpdateFailedError) {
    // The Update's own refusal, or its activity's (wrapped in an ActivityFailure).
    const cause = err.cause instanceof ApplicationFailure ? err.cause : err.cause?.cause;
    if (!(cause instanceof ApplicationFailure)) return err;
    if (cause.type === SUBSCRIPTION_ENDED) return ended();
    if (cause.type === PLAN_CHANGE_REFUSED) return unprocessable('plan_change_refused', cause.message);
    if (cause.type === CARD_CHANGE_REFUSED) return unprocessable('card_refused', cause.message);
    if (cause.type === INVALID_CLOCK) return unprocessable('invalid_clock', cause.message);
    if (cause.type === PLAN_CHANGE_DECLINED) {
      return unprocessable('payment_declined', 'The prorated charge was declined', cause.message);
    }
  }
  return err;
}
