import { ActivityFailure, ApplicationFailure, upsertSearchAttributes } from '@temporalio/workflow';
import {
  firstSubscriptionPeriod,
  keptCardIdOf,
  type ConfirmCheckoutResult,
  type GatewayPaymentData,
  type PaymentSummary,
} from '../domain/checkout.ts';
import { CUSTOMER_ID, PAYMENT_ISSUE, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import type { CheckoutState } from '../contracts/checkout.ts';
import { records, untilAnswered, type Attempt } from './checkout-activity-proxies.ts';
import { withReviewedCardKept } from './checkout-aftermath.ts';
import { askSubscription, gatewaySubscription, startSubscriptionWorkflow } from './checkout-subscriptions.ts';

/** A paid checkout's end (workflow code, for workflows/checkout-run.ts): its sale recorded, or its capture given back. */

/** What recording the sale needs of the checkout's run (a CheckoutRun). */
export interface SaleRun {
  readonly checkoutId: string;
  readonly organizationId: string;
  readonly state: CheckoutState;
  /** The payment the sale recorded: a late duplicate of it is not undone (checkout-aftermath.ts). */
  recordedPaymentId: string | null;
  view(a: Attempt, paymentData: GatewayPaymentData | null): ConfirmCheckoutResult['checkout'];
}

/**
 * Records the paid checkout: the gateway subscription of a gateway-billed recurring price first
 * (its outcome must be known, or the gateway could bill a subscription we do not hold), then the
 * customer, transaction, subscription and sale in one transaction. Should the record be refused
 * for good, the capture is given back: never money without a sale.
 */
export async function recordCheckoutSale(
  run: SaleRun,
  a: Attempt,
  approved: PaymentSummary | null,
): Promise<ConfirmCheckoutResult> {
  const { checkoutId } = run;
  const payment = await withReviewedCardKept(checkoutId, a, approved);
  const paidAt = new Date();
  // A renewal checkout pays a period of its subscription: no new subscription, no gateway recurrence.
  const recurring = a.prepared.renewal ? null : a.prepared.recurring;
  const period = recurring
    ? firstSubscriptionPeriod(
        { interval: recurring.interval, intervalCount: recurring.intervalCount },
        recurring.trial,
        paidAt,
      )
    : null;
  const moves = a.prepared.renewal ?? a.prepared.upgrade;
  if (moves) {
    // The subscription's workflow, its only writer, records what the sale moves first (or refuses it).
    const verdict = await askSubscription(moves.subscriptionId, {
      checkoutId,
      payment,
      cardTokenId: keptCardIdOf(a.request.card, payment),
      periodStart: paidAt.toISOString(),
    });
    if (!verdict.accepted) return giveBack(run, a, payment);
  }
  const gatewaySubscriptionId =
    recurring?.billing === 'gateway' && a.request.card
      ? await gatewaySubscription(checkoutId, a, a.request.card.id, period!.periodEnd)
      : null;
  let sale;
  try {
    sale = await records.recordSale({
      checkoutId,
      payment,
      subscription: period && {
        status: period.status,
        periodStart: paidAt.toISOString(),
        periodEnd: period.periodEnd.toISOString(),
        trialEnd: period.trialEnd?.toISOString() ?? null,
        gatewaySubscriptionId,
        cardTokenId: keptCardIdOf(a.request.card, payment),
      },
    });
  } catch (err) {
    // Refused for good (retryable failures are retried until they succeed); a local activity's
    // failure arrives unwrapped.
    if (!(err instanceof ActivityFailure || err instanceof ApplicationFailure)) throw err;
    return giveBack(run, a, payment);
  }
  return recorded(run, a, payment, sale, !moves);
}

/** The sale is recorded: the checkout succeeded; a new subscription gets its workflow. */
async function recorded(
  run: SaleRun,
  a: Attempt,
  payment: PaymentSummary | null,
  sale: { customerId: string; subscriptionId: string | null },
  newSubscription: boolean,
): Promise<ConfirmCheckoutResult> {
  run.state.status = 'succeeded';
  run.recordedPaymentId = payment?.id ?? null;
  run.state.customerId = sale.customerId;
  run.state.subscriptionId = sale.subscriptionId;
  upsertSearchAttributes([
    { key: CUSTOMER_ID, value: sale.customerId },
    ...(sale.subscriptionId ? [{ key: SUBSCRIPTION_ID, value: sale.subscriptionId }] : []),
  ]);
  // A renewal's or upgrade's subscription recorded the sale's moves itself, before the sale.
  if (newSubscription && sale.subscriptionId) {
    await startSubscriptionWorkflow(run.organizationId, sale.subscriptionId, sale.customerId);
  }
  return { outcome: 'succeeded', checkout: run.view(a, payment?.paymentData ?? null), payment };
}

/** The money-transfer sample's compensation: refund the capture, end the checkout failed, flag the run. */
async function giveBack(run: SaleRun, a: Attempt, payment: PaymentSummary | null): Promise<ConfirmCheckoutResult> {
  const refunded =
    payment && payment.capturedAmount > 0
      ? await untilAnswered.refundUnrecordedCapture(run.checkoutId, payment)
      : payment;
  upsertSearchAttributes([{ key: PAYMENT_ISSUE, value: 'capture_refunded_unrecorded' }]);
  await records.failCheckout(run.checkoutId, 'recording_failed', refunded);
  run.state.status = 'failed';
  run.state.declineReason = 'recording_failed';
  return { outcome: 'declined', checkout: run.view(a, refunded?.paymentData ?? null), payment: refunded };
}
