import type { RecurrenceBilling } from '../domain/subscriptions.ts';
import { boletoRequires } from '../gateway/capabilities.ts';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { confirmableCheckoutRow } from '../db/checkout/confirmations.ts';
import { findCheckoutRow } from '../db/checkout/records.ts';
import {
  CHECKOUT_NOT_OPEN,
  confirmationAllowed,
  CONFIRMATION_IN_PROGRESS,
  CONFIRMATION_INVALID,
  DISCOUNT_REJECTED,
  NO_KEPT_CARD,
  SUBSCRIPTION_EXISTS,
  type BuyerDevice,
  type CheckoutStatus,
  type ConfirmCardToken,
  type ConfirmCheckoutInput,
  type ConfirmCheckoutResult,
  type GatewayPaymentData,
} from '../domain/checkout.ts';
import {
  addressGaps,
  confirmationRefusal,
  hasFirstAndLastName,
  type AddressPart,
  type ConfirmationRefusal,
} from '../domain/checkout-confirmation.ts';
import { parseTaxId } from '../domain/tax-id.ts';
import type { CardInput } from '../gateway/port.ts';
import { offersKeptCardWithCode, offersPixAutomatico } from '../gateway/capabilities.ts';
import type { PixAutomaticoOptIn } from '../domain/checkout-eligibility.ts';
import type { PeriodInterval } from '../domain/periods.ts';
import { subscriptionCardTokenId } from '../db/subscription/checkout-reads.ts';
import { chargeableCard, sentCard } from './card-tokenization.ts';
import { subscriptionExists } from '../use-cases/checkout-references.ts';
import { storedBillingAddress } from '../use-cases/schemas/customers.ts';
import { ApiError, badRequest, notFound, unprocessable } from '../use-cases/errors.ts';
import type { ConfirmSdkBody } from './schemas/checkout-confirm.ts';
import { checkoutWorkflowId, confirmCheckoutUpdate } from '../contracts/checkout.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * Confirming a checkout, shared by the confirm-sdk route (api/routes/checkout-confirm.ts) and the
 * direct transactions route (api/routes/transactions.ts).
 */

/** What a confirmation checks before the Update: the checkout's status and buyer, and its price's kind. */
export interface ConfirmableCheckout {
  id: string;
  organizationId: string;
  /** A renewal checkout's subscription (its kept card may pay it, decision 0078). */
  subscriptionId: string | null;
  status: string;
  amount: number;
  customerId: string | null;
  customerEmail: string | null;
  customerName: string | null;
  /** The checkout's customer's own e-mail and name, if it has one: whose card a kept card is. */
  ownerEmail: string | null;
  ownerName: string | null;
  customerTaxId: string | null;
  priceId: string;
  priceType: 'one_time' | 'recurring';
  priceInterval: string | null;
  priceIntervalCount: number | null;
  /** A trial: no first payment, so no Pix Automático to choose. */
  hasTrial: boolean;
  noFeesInstallments: boolean;
  paymentMethod: string | null;
  requireBillingAddress: boolean;
  recurrenceBilling: RecurrenceBilling;
  hasBillingAddress: boolean;
  /** What the stored billing address lacks of a full one (a boleto's, at some gateways). */
  billingAddressLacks: AddressPart[];
}

/** The checkout and its price in one statement (this is the buyer's hot path). */
export async function confirmableCheckoutOf(
  em: EntityManager,
  by: { clientSecret: string } | { id: string; organizationId: string },
): Promise<ConfirmableCheckout> {
  const row = await confirmableCheckoutRow(em, by);
  if (!row) throw notFound('Checkout');
  const { customerBillingAddress: address, ...rest } = row;
  return { ...rest, hasBillingAddress: address !== null, billingAddressLacks: addressGaps(address) };
}

/** The buyer's checkout by its client secret, for the hosted page's form post (which has no SQL of its own). */
export function confirmableByClientSecret(deps: RouteDeps, clientSecret: string): Promise<ConfirmableCheckout> {
  return confirmableCheckoutOf(deps.orm.em.fork(), { clientSecret });
}

const notOpen = (status: string) =>
  new ApiError(409, CHECKOUT_NOT_OPEN, 'Checkout is not open', `Checkout is ${status}`);
const inProgress = () =>
  new ApiError(409, CONFIRMATION_IN_PROGRESS, 'A confirmation of this checkout is already in progress');

const DISCOUNT_ERRORS: Record<string, [code: string, message: string]> = {
  discount_codes_not_allowed: ['discount_codes_not_allowed', 'This checkout does not accept discount codes'],
  discount_not_found: ['discount_not_found', 'Unknown discount code'],
  discount_already_applied: ['discount_already_applied', 'The checkout already has a discount'],
  // Its uses all taken (max_redemptions): the code checkout creation answers for it too, worded as such on the page.
  exhausted: ['discount_exhausted', 'Discount has no redemptions left'],
};
const DISCOUNT_NOT_APPLICABLE = 'discount_not_applicable';

/** The API's error code of a discount code's refusal (domain/checkout.ts DiscountCodeRefusal, or the workflow's reason). */
export const discountRefusalCode = (reason: string): string => DISCOUNT_ERRORS[reason]?.[0] ?? DISCOUNT_NOT_APPLICABLE;

/** Every code a discount code's refusal answers with (the hosted page words each one, pages/checkout/refusals.ts). */
export const DISCOUNT_REFUSAL_CODES = [
  ...Object.values(DISCOUNT_ERRORS).map(([code]) => code),
  DISCOUNT_NOT_APPLICABLE,
];

/**
 * Confirms a checkout: the request rules and server-side card tokenization (only the token reaches
 * the workflow), then one Update that carries everything, discount code included. The workflow fixes
 * the amount, charges and records; the answer is the Update's result. Shared by confirm-sdk and
 * transactions/direct.
 */
export async function confirmCheckout(
  deps: RouteDeps,
  checkout: ConfirmableCheckout,
  body: ConfirmSdkBody,
  buyerDevice?: BuyerDevice,
): Promise<ConfirmCheckoutResult> {
  // The workflow has the last word (a pix being settled, a payment in flight); this spares it the obvious.
  const status = checkout.status as CheckoutStatus;
  if (!confirmationAllowed({ ...checkout, status, pendingPayment: true }, body.payment_method)) throw notOpen(status);

  const sent = sentCard(deps, body.card ? cardInputOf(body.card) : null, body.card_token?.token ?? null);
  const installments = body.card?.installments ?? body.card_token?.installments ?? 1;
  // A browser's single-use token travels in the Update as it is: charged first, the card kept after the
  // charge by the activity (decision 0074), so nothing precedes the activity's verdict on it.
  const singleUse = sent !== null && 'browserToken' in sent && deps.gateway.browserTokensSingleUse === true;
  // The confirmation's activity decides (decision 0062); the same rule here answers before a card is
  // tokenized or kept, which on some gateways already needs the buyer's e-mail.
  if (!singleUse) refuse(earlyRefusal(deps, checkout, body, sent !== null, installments));
  let card: ConfirmCardToken | null = null;
  if (body.card_token?.kept_card) {
    card = await keptCardToken(deps, checkout, body.card_token.token);
  } else if (singleUse) {
    card = {
      id: sent.browserToken,
      brand: 'unknown',
      first4: '',
      last4: '',
      browser: {
        paymentMethodId: body.card_token?.payment_method_id ?? null,
        issuerId: body.card_token?.issuer_id ?? null,
        keep: checkout.priceType === 'recurring',
      },
    };
  } else if (sent) {
    const owner = {
      email: body.customer_email ?? checkout.customerEmail ?? checkout.ownerEmail,
      name: body.customer_name ?? checkout.customerName ?? checkout.ownerName,
    };
    const kept = await chargeableCard(deps, `checkout:${checkout.id}`, sent, owner);
    card = { id: kept.id, brand: kept.brand, first4: kept.first4, last4: kept.last4 };
  }
  const handle = deps.temporal.workflow.getHandle(checkoutWorkflowId(checkout.id));
  const update = {
    // Our own id, so that the slow path below can wait for this same Update to be accepted.
    updateId: randomUUID(),
    args: [
      {
        paymentMethod: body.payment_method,
        card,
        installments,
        buyer: {
          email: body.customer_email ?? null,
          name: body.customer_name ?? null,
          taxId: body.customer_tax_id ? parseTaxId(body.customer_tax_id)!.number : null,
          billingAddress: body.customer_billing_address ? storedBillingAddress(body.customer_billing_address) : null,
        },
        discountCode: body.discount_code ?? null,
        ...(body.pix_automatico ? { pixAutomatico: true } : {}),
        // The buyer's own request (not a merchant's server call): for the gateway's risk analysis.
        ...(buyerDevice ? { buyerDevice } : {}),
      },
    ] as [ConfirmCheckoutInput],
  };
  try {
    // One call that returns with the outcome (the server holds it until the Update completes); past
    // CHECKOUT_CONFIRM_WAIT_MS the checkout is answered as being processed.
    const completed = handle.executeUpdate(confirmCheckoutUpdate, update);
    const answered = await Promise.race([
      completed,
      new Promise<null>((resolve) => setTimeout(resolve, deps.config.CHECKOUT_CONFIRM_WAIT_MS, null).unref()),
    ]);
    if (answered) return answered;
    // Past the wait: its outcome is read from the checkout later, by the buyer's polling.
    completed.catch(() => undefined);
    // Only an Update the workflow accepted may be answered as being processed; a refusal throws here.
    await handle.startUpdate(confirmCheckoutUpdate, { ...update, waitForStage: WorkflowUpdateStage.ACCEPTED });
    return await stillProcessing(deps, checkout.id);
  } catch (err) {
    throw confirmationError(err);
  }
}

/**
 * The browser's token of the card the checkout's subscription keeps, minted with the security code the
 * buyer typed again (decision 0078): charged as it is, as the card's customer, and the card stays the
 * one kept. Refused (422) where the checkout's subscription keeps no card this gateway mints so.
 */
async function keptCardToken(deps: RouteDeps, checkout: ConfirmableCheckout, token: string): Promise<ConfirmCardToken> {
  const keptCardId = checkout.subscriptionId
    ? await subscriptionCardTokenId(deps.orm.em.fork(), checkout.organizationId, checkout.subscriptionId)
    : null;
  if (!keptCardId || !offersKeptCardWithCode(deps.gateway) || !deps.gateway.keptCardBrowserId(keptCardId)) {
    throw unprocessable(NO_KEPT_CARD, "This checkout's subscription keeps no card to pay with; send the whole card");
  }
  return {
    id: token,
    brand: 'unknown',
    first4: '',
    last4: '',
    browser: { paymentMethodId: null, issuerId: null, keep: false, keptCardId },
  };
}

/** The confirmation's refusal (domain/checkout-confirmation.ts) on the request and the checkout as read. */
function earlyRefusal(
  deps: RouteDeps,
  checkout: ConfirmableCheckout,
  body: ConfirmSdkBody,
  hasCard: boolean,
  installments: number,
): ConfirmationRefusal | null {
  return confirmationRefusal(
    {
      request: { paymentMethod: body.payment_method, hasCard, installments, pixAutomatico: body.pix_automatico },
      pixAutomatico: checkout.recurrenceBilling === 'pix_automatico',
      optIn: pixAutomaticoOptInOf(checkout),
      price: { type: checkout.priceType, interval: checkout.priceInterval },
      buyer: {
        // A customer of the checkout has an e-mail (customers require one).
        hasEmail: Boolean(body.customer_email || checkout.customerEmail || checkout.customerId),
        hasName: Boolean(body.customer_name ?? checkout.customerName),
        hasTaxId: Boolean(body.customer_tax_id ?? checkout.customerTaxId),
        sentInvalidTaxId: body.customer_tax_id ? !parseTaxId(body.customer_tax_id) : false,
        hasAddress: checkout.hasBillingAddress || Boolean(body.customer_billing_address),
        addressRequired: checkout.requireBillingAddress,
        hasFullName: hasFirstAndLastName(body.customer_name ?? checkout.customerName),
        addressLacks: body.customer_billing_address
          ? addressGaps(body.customer_billing_address)
          : checkout.billingAddressLacks,
      },
    },
    {
      boletoNeedsAddress: boletoRequires(deps.gateway, 'address'),
      boletoNeedsFullName: boletoRequires(deps.gateway, 'full_name'),
      pixAutomatico: offersPixAutomatico(deps.gateway),
    },
  );
}

/** What the buyer's choice of Pix Automático is judged on (domain/checkout-eligibility.ts), from the checkout as read. */
export function pixAutomaticoOptInOf(checkout: ConfirmableCheckout): PixAutomaticoOptIn {
  return {
    price: {
      id: checkout.priceId,
      type: checkout.priceType,
      interval: checkout.priceInterval as PeriodInterval | null,
      intervalCount: checkout.priceIntervalCount,
    },
    recurrenceBilling: checkout.recurrenceBilling,
    trial: checkout.hasTrial,
    ofSubscription: checkout.subscriptionId !== null,
  };
}

/** A confirmation that outlasted the request: the buyer is told it is being processed, and polls the checkout. */
async function stillProcessing(deps: RouteDeps, checkoutId: string): Promise<ConfirmCheckoutResult> {
  const c = await findCheckoutRow(deps.orm.em.fork(), checkoutId);
  // The checkout was read before the Update: it is still there (checkouts are never deleted).
  if (!c) throw new Error(`Checkout ${checkoutId} not found`);
  return {
    outcome: 'processing',
    checkout: {
      id: c.id,
      // The Update was accepted: a row still open only means its first step has not committed yet.
      status: c.status === 'open' ? 'confirmed' : c.status,
      payment_method: (c.paymentMethod ?? 'credit_card') as ConfirmCheckoutResult['checkout']['payment_method'],
      amount: Number(c.amount),
      currency: c.currency,
      gateway_payment_data: (c.gatewayPaymentData as GatewayPaymentData | null) ?? null,
      decline_reason: c.declineReason ?? null,
      customer_id: c.customerId ?? null,
      subscription_id: c.subscriptionId ?? null,
    },
    payment: null,
  };
}

/** The workflow's refusals as the API's errors. */
function confirmationError(err: unknown): unknown {
  // The workflow has ended: the checkout expired or was paid meanwhile.
  if (err instanceof WorkflowNotFoundError) return notOpen('closed');
  if (!(err instanceof WorkflowUpdateFailedError) || !(err.cause instanceof ApplicationFailure)) return err;
  const failure = err.cause;
  switch (failure.type) {
    case CONFIRMATION_IN_PROGRESS:
      return inProgress();
    case CHECKOUT_NOT_OPEN:
      return notOpen(failure.message.replace(/^Checkout is /, ''));
    case CONFIRMATION_INVALID:
      return refusalError(failure.message, failure.details?.[0]);
    case SUBSCRIPTION_EXISTS:
      return subscriptionExists();
    case DISCOUNT_REJECTED: {
      const reason = String(failure.details?.[0] ?? 'not_applicable');
      const known = DISCOUNT_ERRORS[reason];
      if (known) return unprocessable(known[0], known[1]);
      return unprocessable(DISCOUNT_NOT_APPLICABLE, 'The discount does not apply to this checkout', reason);
    }
    default:
      return err;
  }
}

/** confirm-sdk's card fields as the gateway port's card. */
function cardInputOf(c: NonNullable<ConfirmSdkBody['card']>): CardInput {
  return {
    number: c.number,
    holderName: c.holder_name,
    expirationMonth: c.expiration_month,
    expirationYear: c.expiration_year,
    cvv: c.cvv,
  };
}

/** A refused confirmation (domain/checkout-confirmation.ts), with the status and code it carries. */
function refuse(refusal: ConfirmationRefusal | null): void {
  if (refusal) throw new ApiError(refusal.status, refusal.code, refusal.message, refusal.detail);
}

/**
 * The activity's refusal (CONFIRMATION_INVALID) as the API's error: its details carry the refusal's status,
 * code and detail (activities/checkout-records.ts), so it answers as the early check would have.
 */
export function refusalError(message: string, details: unknown): ApiError {
  const d = (typeof details === 'object' && details !== null ? details : {}) as Partial<ConfirmationRefusal>;
  const detail = typeof d.detail === 'string' ? d.detail : undefined;
  if ((d.status === 400 || d.status === 422) && typeof d.code === 'string') {
    return new ApiError(d.status, d.code, message, detail);
  }
  // A refusal recorded before the status travelled with it (an Update in flight across a deploy).
  return badRequest(message, typeof details === 'string' ? details : detail);
}
