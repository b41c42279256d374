import { recurringBillingOf } from '../gateway/capabilities.ts';
import { checkoutMandateTermsOf, issueMandate, type MandateTerms } from './checkout-mandates.ts';
import { isDeepStrictEqual } from 'node:util';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { findCheckoutRow, updateCheckoutFields } from '../db/checkout/records.ts';
import { syncTransaction, upsertTransaction } from '../db/checkout/transactions.ts';
import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import {
  CHECKOUT_NOT_OPEN,
  checkoutKeys,
  type BuyerDevice,
  type GatewayPaymentData,
  type PaymentSummary,
} from '../domain/checkout.ts';
import { boletoDueDate, pixValiditySeconds } from '../domain/pending-payments.ts';
import { cardReviewDeadline, CARD_REVIEW_WAIT_SECONDS } from '../domain/card-review.ts';
import type { Config } from '../config/env.ts';
import { boletoPayableUntil } from '../gateway/payment-documents.ts';
import {
  GatewayError,
  type BuyerInput,
  type GatewayTransaction,
  type PaymentGateway,
  type SaleDetails,
} from '../gateway/port.ts';
import { checkoutPayer, checkoutSaleDetails } from '../db/checkout/sale-details.ts';
import { chargeCard, findChargeByKey } from './card-charges.ts';
import { lockedCheckout } from './checkout-records.ts';
import { checkoutRecord } from '../use-cases/schemas/checkouts.ts';
import { callGateway } from './gateway-failures.ts';
import { recordUnsoldPaymentRefund } from './duplicate-payment-refunds.ts';
import { ensureRecurrencePlan } from '../use-cases/recurrence-plans.ts';
import type { CheckoutActivities, CheckoutCardCharge, PendingPaymentIssue } from '../contracts/checkout.ts';

/**
 * The checkout's gateway steps. Each is one gateway call (or a call and its unavoidable follow-up,
 * such as capturing a pre-authorization), keyed by the checkout and the payment slot so a retry or a
 * replay returns the first result. Recording what they return is the workflow's next activity.
 */

/** The gateway's transaction as the workflow carries it. */
export function summarize(t: GatewayTransaction): PaymentSummary {
  return {
    id: t.id,
    status: t.status,
    paymentType: t.paymentType,
    amount: t.amount,
    currency: t.currency,
    installments: t.installments,
    authorizationCode: t.authorizationCode,
    declineReason: t.declineReason,
    capturedAmount: t.capturedAmount,
    refundedAmount: t.refundedAmount,
    confirmedAt: t.confirmedAt,
    card: t.card,
    paymentData: paymentData(t),
  };
}

/** The checkout's gateway_payment_data: the spec's four fields, plus what a pix/boleto buyer needs to pay. */
function paymentData(t: GatewayTransaction): GatewayPaymentData {
  return {
    transaction_id: t.id,
    status: t.status,
    authorization_code: t.authorizationCode,
    installments: t.installments,
    ...(t.pix
      ? {
          pix: {
            qr_code: t.pix.qrCode,
            qr_code_image: t.pix.qrCodeImage,
            expires_at: t.pix.expiresAt,
            ...(t.pix.url ? { url: t.pix.url } : {}),
          },
        }
      : {}),
    ...(t.boleto
      ? {
          boleto: {
            barcode: t.boleto.barcode,
            digitable_line: t.boleto.digitableLine,
            due_date: t.boleto.dueDate,
            url: t.boleto.url,
          },
        }
      : {}),
    ...(t.threeDs ? { three_ds: { url: t.threeDs.url, creq: t.threeDs.creq } } : {}),
  };
}

/** What the checkout's gateway steps use: the database, the gateway, and how long a card's review is waited for. */
interface PaymentDeps {
  orm: Orm;
  gateway: PaymentGateway;
  config?: Pick<Config, 'CARD_REVIEW_WAIT_SECONDS'>;
}

export function createCheckoutPaymentActivities(deps: PaymentDeps) {
  return { ...cardActivities(deps), ...pendingPaymentActivities(deps), ...afterCaptureActivities(deps) };
}

/**
 * A charge is made only for a checkout this confirmation holds: one that expired or was paid is
 * refused, unless it was paid by this very slot (a workflow task lost after recording the sale runs
 * the confirmation again, and the slot's key returns the same charge rather than a second one).
 */
async function assertPayable(orm: Orm, checkoutId: string, slot: number): Promise<void> {
  const row = await findCheckoutRow(orm.em.fork(), checkoutId);
  const paidBySlot = row?.status === 'succeeded' && row.paymentSlot === slot;
  if (row?.status !== 'confirmed' && !paidBySlot) {
    throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} is ${row?.status ?? 'missing'}`, CHECKOUT_NOT_OPEN);
  }
}

/**
 * What the checkout's charge tells the gateway of the sale (decision 0069): the seller, the product
 * for the amount charged, and the buyer's IP address (the confirming request's, else the one the
 * merchant gave) and device id. The checkout knows no phone number.
 */
async function saleDetailsOf(
  orm: Orm,
  input: { checkoutId: string; amount: number; buyerDevice?: BuyerDevice },
): Promise<SaleDetails> {
  const details = await checkoutSaleDetails(orm.em.fork(), input.checkoutId);
  const product = details?.productName
    ? [{ id: details.productId, title: details.productName, quantity: 1, unitPrice: input.amount }]
    : [];
  return {
    merchantName: details?.sellerName ?? null,
    items: product,
    buyerIp: input.buyerDevice?.ip ?? details?.customerIpAddress ?? null,
    deviceSessionId: input.buyerDevice?.sessionId ?? null,
  };
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
    async findPayment(idempotencyKey: string): Promise<PaymentSummary | null> {
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
    const kept = await gateway.keepBrowserCard(
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

/** The pix or boleto: issued and shown on the checkout, synced from the gateway, voided past its deadline. */
function pendingPaymentActivities(deps: PaymentDeps) {
  const { orm, gateway } = deps;
  return {
    /** Issues the pix or boleto for the amount the confirmation fixed, and shows it on the checkout. */
    async issuePendingPayment(input: PendingPaymentIssue): Promise<{ payment: PaymentSummary; payBy: string }> {
      await assertPayable(orm, input.checkoutId, input.slot);
      const terms = input.kind === 'pix' ? await checkoutMandateTermsOf(orm, input.checkoutId) : null;
      const sale = await saleDetailsOf(orm, input);
      const { issued, payBy, mandate } = await issuePixOrBoleto(gateway, input, sale, terms);
      const payment = summarize(issued);
      if (mandate) payment.paymentData.pix_automatico = mandate;
      await showOnCheckout(orm, input.checkoutId, payment);
      return { payment, payBy: payBy.toISOString() };
    },

    /** The gateway's word on a transaction, copied into our transactions table. */
    async syncPayment(gatewayTransactionId: string): Promise<PaymentSummary> {
      const t = await callGateway(() => gateway.getTransaction(gatewayTransactionId));
      if (!t) {
        throw ApplicationFailure.nonRetryable(
          `Gateway has no transaction ${gatewayTransactionId}`,
          'UnknownTransaction',
        );
      }
      await syncTransaction(orm.em.fork(), t);
      return summarize(t);
    },

    /**
     * Voids an unpaid pix/boleto past its deadline, or a card payment under review; if it was paid (or
     * refused) meanwhile, says so instead.
     */
    async cancelPendingPayment(checkoutId: string, gatewayTransactionId: string): Promise<PaymentSummary> {
      try {
        return summarize(
          await gateway.cancel(gatewayTransactionId, checkoutKeys.cancel(checkoutId, gatewayTransactionId)),
        );
      } catch (err) {
        if (!(err instanceof GatewayError) || err.retryable) throw err;
        const t = await callGateway(() => gateway.getTransaction(gatewayTransactionId));
        if (!t)
          throw ApplicationFailure.nonRetryable(
            `Gateway has no transaction ${gatewayTransactionId}`,
            'UnknownTransaction',
          );
        return summarize(t);
      }
    },
  } satisfies Partial<CheckoutActivities>;
}

/**
 * A payment the buyer waits on (a pix code or boleto to pay, a card under review) recorded as our
 * transaction and shown on the confirmed checkout: once, with its checkout.updated.
 */
async function showOnCheckout(orm: Orm, checkoutId: string, payment: PaymentSummary): Promise<void> {
  await orm.em.fork().transactional(async (tx) => {
    const checkout = await lockedCheckout(tx, checkoutId);
    await upsertTransaction(tx, { organizationId: checkout.organizationId, checkoutId }, payment);
    if (checkout.status !== 'confirmed' || isDeepStrictEqual(checkout.gatewayPaymentData, payment.paymentData)) return;
    const shown = await updateCheckoutFields(tx, checkout.id, { gatewayPaymentData: payment.paymentData });
    await insertEvents(tx, shown.organizationId, [['checkout.updated', checkoutRecord(shown)]]);
  });
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

/** The pix or boleto at the gateway, keyed by the checkout's payment slot, and the last moment it can be paid. */
async function issuePixOrBoleto(
  gateway: PaymentGateway,
  input: PendingPaymentIssue,
  sale: SaleDetails,
  mandateTerms: MandateTerms | null,
): Promise<{ issued: GatewayTransaction; payBy: Date; mandate?: GatewayPaymentData['pix_automatico'] }> {
  const now = Date.now();
  let issued: GatewayTransaction;
  let payBy: Date;
  if (input.kind === 'pix' && mandateTerms) {
    const offered = await issueMandate(gateway, input, mandateTerms, sale, now);
    return { ...offered, payBy: new Date(offered.issued.pix!.expiresAt) };
  } else if (input.kind === 'pix') {
    issued = await callGateway(() =>
      gateway.createPixCharge(
        {
          reference: input.checkoutId,
          amount: input.amount,
          currency: input.currency,
          buyer: input.buyer.email ? input.buyer : null,
          expiresInSeconds: pixValiditySeconds(new Date(input.expiresAt), new Date(now)),
          sale,
        },
        checkoutKeys.pix(input.checkoutId, input.slot),
      ),
    );
    payBy = new Date(issued.pix!.expiresAt);
  } else {
    issued = await callGateway(() =>
      gateway.createBoleto(
        {
          reference: input.checkoutId,
          amount: input.amount,
          currency: input.currency,
          buyer: input.buyer,
          dueDate: boletoDueDate(new Date(now)),
          sale,
        },
        checkoutKeys.boleto(input.checkoutId, input.slot),
      ),
    );
    // Payable through the due date and the grace days after it (UTC), as the gateway counts them.
    payBy = boletoPayableUntil(issued.boleto!.dueDate);
  }
  return { issued, payBy };
}
