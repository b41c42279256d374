import { Context, log } from '@temporalio/activity';
import type { CheckoutActivities, CheckoutCardCharge, PendingPaymentIssue } from '../contracts/checkout.ts';
import { checkoutPayer } from '../db/checkout/sale-details.ts';
import { checkoutKeys, type PaymentSummary } from '../domain/checkout.ts';
import { cardReviewDeadline, CARD_REVIEW_WAIT_SECONDS } from '../domain/card-review.ts';
import { cardPaymentsOf, recurringBillingOf } from '../gateway/capabilities.ts';
import { GatewayError, type BuyerInput, type PaymentGateway } from '../gateway/port.ts';
import { ensureRecurrencePlan } from '../use-cases/recurrence-plans.ts';
import { chargeCard, findChargeByKey } from './card-charges.ts';
import { assertPayable, saleDetailsOf, showOnCheckout, type PaymentDeps } from './checkout-payment-context.ts';
import { findIssuedMandate, pendingPaymentActivities } from './checkout-pending-payments.ts';
import { recordUnsoldPaymentRefund } from './duplicate-payment-refunds.ts';
import { callGateway } from './gateway-failures.ts';
import { summarize } from './payment-summaries.ts';

/**
 * The checkout's gateway steps. Each is one gateway call (or a call and its unavoidable follow-up,
 * such as capturing a pre-authorization), keyed by the checkout and the payment slot so a retry or a
 * replay returns the first result. Recording what they return is the workflow's next activity. The
 * card's and the after-capture steps are here; the pix's and boleto's in checkout-pending-payments.ts.
 */

/** Where the other activities have always found it. */
export { summarize } from './payment-summaries.ts';

export function createCheckoutPaymentActivities(deps: PaymentDeps) {
  return { ...cardActivities(deps), ...pendingPaymentActivities(deps), ...afterCaptureActivities(deps) };
}

/** The card's charge, and the truth about a charge whose answer was lost. */
function cardActivities(deps: PaymentDeps) {
  const { orm, gateway } = deps;
  const reviewWaitSeconds = deps.config?.CARD_REVIEW_WAIT_SECONDS ?? CARD_REVIEW_WAIT_SECONDS;
  return {
    /**
     * Charges the tokenized card for the amount the confirmation fixed, capturing a
     * pre-authorization; a capture the gateway refuses voids the authorization, so no hold is left
     * on the buyer's card. A decline is an answer (status failed), not an error; a payment the gateway
     * is still reviewing (pending) is shown on the checkout with the deadline its wait has (decision 0070).
     */
    async chargeCard(input: CheckoutCardCharge): Promise<PaymentSummary> {
      await assertPayable(orm, input.checkoutId, input.slot);
      const browser = input.browserCard;
      const payer = browser ? await checkoutPayer(orm.em.fork(), input.checkoutId) : undefined;
      const charged = await chargeCard(
        gateway,
        {
          reference: input.checkoutId,
          amount: input.amount,
          currency: input.currency,
          installments: input.installments,
          noFeesInstallments: input.noFeesInstallments,
          card: { token: input.cardTokenId },
          capture: true,
          sale: await saleDetailsOf(orm, input),
          ...(browser?.paymentMethodId
            ? { cardMethod: { paymentMethodId: browser.paymentMethodId, issuerId: browser.issuerId } }
            : {}),
          ...(payer?.email ? { payer: { email: payer.email, name: payer.name, taxId: payer.taxId } } : {}),
          ...(browser?.keptCardId ? { keptCardId: browser.keptCardId } : {}),
        },
        {
          charge: checkoutKeys.charge(input.checkoutId, input.slot),
          capture: checkoutKeys.capture(input.checkoutId, input.slot),
          void: checkoutKeys.void(input.checkoutId, input.slot),
        },
      );
      const summary = summarize(charged);
      if (summary.status === 'pending') {
        // Under review: the card is kept once approved (keepReviewedCard), as the approval comes later.
        const until = cardReviewDeadline(new Date(charged.createdAt), reviewWaitSeconds, Boolean(charged.threeDs));
        const underReview = { ...summary, paymentData: { ...summary.paymentData, review: { until } } };
        await showOnCheckout(orm, input.checkoutId, underReview);
        return underReview;
      }
      if (!browser?.keep || summary.status !== 'succeeded') return summary;
      return { ...summary, keptCardId: await keepPaidCard(gateway, input, payer) };
    },

    /**
     * Keeps the card of a payment approved after its review (decision 0070): the browser's token,
     * used once by the charge, is kept now as an approval at once keeps it (its token lives for days,
     * longer than Mercado Pago's two business days of review).
     */
    async keepReviewedCard(input: Pick<CheckoutCardCharge, 'checkoutId' | 'slot' | 'cardTokenId'>) {
      return keepPaidCard(gateway, input, await checkoutPayer(orm.em.fork(), input.checkoutId));
    },

    /**
     * The truth about a payment call whose answer was lost: the transaction the gateway made under
     * the slot's key, or null when it never processed that call.
     */
    async findPayment(idempotencyKey: string, issue?: PendingPaymentIssue): Promise<PaymentSummary | null> {
      const mandatePix = issue ? await findIssuedMandate(deps, issue) : undefined;
      if (mandatePix) return mandatePix;
      const found = await findChargeByKey(gateway, idempotencyKey);
      return found ? summarize(found) : null;
    },
  } satisfies Partial<CheckoutActivities>;
}

/** Tries of keeping a paid card an outage may take before the sale goes on without it. */
const KEEP_CARD_TRIES = 3;

/**
 * Keeps the card a browser's single-use token just paid with, as the gateway's recurring-charges guide
 * orders it: after the first payment was approved (decision 0074). Keyed by the checkout's slot, so a
 * retried activity keeps it once. The sale stands either way: a card the gateway will not keep (or an
 * outage past a few tries) is null, logged, and the subscription then holds no card, so its renewals
 * are dunned with `no_saved_card` (decision 0065) and the customer is asked for a card again.
 */
async function keepPaidCard(
  gateway: PaymentGateway,
  input: Pick<CheckoutCardCharge, 'checkoutId' | 'slot' | 'cardTokenId'>,
  payer: { email: string | null; name: string | null } | undefined,
): Promise<string | null> {
  const owner = { email: payer?.email ?? null, name: payer?.name ?? null };
  try {
    const kept = await cardPaymentsOf(gateway).keepBrowserCard(
      input.cardTokenId,
      owner,
      checkoutKeys.keepCard(input.checkoutId, input.slot),
    );
    return kept.id;
  } catch (err) {
    const outage = err instanceof GatewayError && err.retryable;
    // The charge's key answers the same payment on the retry; only keeping the card is done again.
    if (outage && Context.current().info.attempt < KEEP_CARD_TRIES) throw err;
    log.warn('The paid card was not kept: the subscription has no card for its renewals', {
      checkoutId: input.checkoutId,
      error: (err as Error).message,
    });
    return null;
  }
}

/**
 * What follows a capture: its compensation when the sale cannot be recorded, and the gateway
 * subscription of a recurring price.
 */
function afterCaptureActivities(deps: PaymentDeps) {
  const { gateway } = deps;
  return {
    /**
     * Gives a capture back when its sale could not be recorded (the money-transfer sample's
     * compensation), or one the checkout's sale does not account for: a full refund, keyed by the
     * checkout and the transaction, so it happens once; recorded on our books as given back.
     */
    async refundUnrecordedCapture(checkoutId: string, payment: PaymentSummary): Promise<PaymentSummary> {
      const refunded = await callGateway(() =>
        gateway.refund(
          payment.id,
          payment.capturedAmount - payment.refundedAmount,
          checkoutKeys.compensation(checkoutId, payment.id),
        ),
      );
      await recordUnsoldPaymentRefund(deps.orm, summarize(refunded));
      return summarize(refunded);
    },

    /**
     * The gateway subscription that bills a recurring price when recurrence_billing is gateway: its
     * buyer and subscription keyed by the checkout, starting when the first period ends. Null when
     * the price has no gateway plan.
     */
    async createGatewaySubscription(input: {
      checkoutId: string;
      priceId: string;
      cardTokenId: string;
      buyer: BuyerInput;
      startDate: string;
    }): Promise<string | null> {
      const planId = await callGateway(() => ensureRecurrencePlan(deps, input.priceId));
      if (!planId) return null;
      const buyer = await callGateway(() =>
        recurringBillingOf(gateway).createBuyer(input.buyer, checkoutKeys.buyer(input.checkoutId)),
      );
      const created = await callGateway(() =>
        recurringBillingOf(gateway).createSubscription(
          {
            reference: input.checkoutId,
            planId,
            buyerId: buyer.id,
            cardToken: input.cardTokenId,
            startDate: input.startDate,
          },
          checkoutKeys.subscription(input.checkoutId),
        ),
      );
      return created.id;
    },
  } satisfies Partial<CheckoutActivities>;
}
