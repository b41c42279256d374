import type { MandatePeriodicity } from './pix-automatico.ts';
/**
 * The checkout's shared language and rules, imported by the API, the workflow and the activities
 * alike (so activities never import from workflows/). Pure: no I/O, no clock.
 */
import { discountAmount, discountApplicability, type DiscountInapplicability, type DiscountRule } from './discounts.ts';
import { addInterval, type PeriodInterval } from './periods.ts';

/** A checkout's statuses, as stored and as the API answers them. */
export const CHECKOUT_STATUSES = ['open', 'confirmed', 'succeeded', 'failed', 'expired'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
export type ConfirmPaymentMethod = 'credit_card' | 'pix' | 'boleto';

/** A sale's payment_method from its payment's type (the gateway's `credit` is the API's `credit_card`). */
export const saleMethodOf = (paymentType: 'credit' | 'pix' | 'boleto'): ConfirmPaymentMethod =>
  paymentType === 'credit' ? 'credit_card' : paymentType;

/**
 * What happens to a checkout: a confirmation takes it (its payment in flight), a refused payment gives
 * it back to the buyer, a failure or a recorded sale ends it, and so does its expiry while open.
 */
export type CheckoutChange = 'confirm' | 'refuse' | 'fail' | 'pay' | 'expire';

const CHECKOUT_LIFECYCLE: Record<CheckoutChange, { from: CheckoutStatus; to: CheckoutStatus }> = {
  confirm: { from: 'open', to: 'confirmed' },
  refuse: { from: 'confirmed', to: 'open' },
  fail: { from: 'confirmed', to: 'failed' },
  pay: { from: 'confirmed', to: 'succeeded' },
  expire: { from: 'open', to: 'expired' },
};

/**
 * The checkout's lifecycle (DESIGN.md: open → confirmed → succeeded | failed, a refusal back to open,
 * open → expired): the status a change leads to, or null when it does not apply in this status.
 */
export function checkoutTransition(status: CheckoutStatus, change: CheckoutChange): CheckoutStatus | null {
  const step = CHECKOUT_LIFECYCLE[change];
  return step.from === status ? step.to : null;
}
/** The one status `change` leaves (a guarded update's `where status = …`). */
export function checkoutChangeFrom(change: CheckoutChange): CheckoutStatus {
  return CHECKOUT_LIFECYCLE[change].from;
}
export type PendingPaymentKind = 'pix' | 'boleto';

/** What a payment keeps of the buyer's card (the gateway's card token): never its number or CVV. */
export interface PaymentCard {
  id: string;
  brand: string;
  first4: string;
  last4: string;
  holderName: string;
  expirationMonth: string;
  expirationYear: string;
}

/**
 * A gateway card token: what the API got from tokenizing the buyer's card, or the browser's own
 * single-use token (`browser`). Never the card itself.
 */
export type ConfirmCardToken = Pick<PaymentCard, 'id' | 'brand' | 'first4' | 'last4'> & {
  browser?: BrowserCardToken;
};

/**
 * A browser's single-use token (a gateway whose browser tokens pay once, decision 0074): the first
 * payment is charged with it as it is, and the card is kept afterwards when `keep` says the checkout
 * needs it kept (a recurring price: its renewals). The payment method and issuer are what the
 * gateway's browser script looked up from the card's BIN.
 */
export interface BrowserCardToken {
  paymentMethodId: string | null;
  issuerId: string | null;
  keep: boolean;
  /**
   * The kept card (our id of it) the browser minted this token from, with the security code the buyer
   * typed again (decision 0078): the card's customer pays, and the card stays the one kept.
   */
  keptCardId?: string;
}

/**
 * The card a paid checkout leaves to its subscription: the kept card's id. A browser's single-use token
 * is none: the card the charge kept (`payment.keptCardId`), or null when keeping it failed, so the
 * renewals are dunned with `no_saved_card` (decision 0065) rather than charge a spent token.
 */
export function keptCardIdOf(card: ConfirmCardToken | null, payment: PaymentSummary | null): string | null {
  if (!card) return null;
  if (!card.browser) return card.id;
  return card.browser.keptCardId ?? payment?.keptCardId ?? null;
}

export interface ConfirmBuyer {
  email: string | null;
  name: string | null;
  taxId: string | null;
  /** When the checkout requires one (require_billing_address); older confirmations carry none. */
  billingAddress?: BuyerAddress | null;
}

/** A billing address as stored: state and postal_code null where a country has none. */
export interface BuyerAddress {
  line1: string;
  city: string;
  state: string | null;
  postal_code: string | null;
  country: string;
}

/** Everything a confirmation carries into the workflow, in one Update. */
export interface ConfirmCheckoutInput {
  paymentMethod: ConfirmPaymentMethod;
  /** Present for credit_card. */
  card: ConfirmCardToken | null;
  installments: number;
  buyer: ConfirmBuyer;
  /** Applied by the workflow, under the same lock that marks the checkout confirmed. */
  discountCode: string | null;
  /**
   * The buyer chose Pix Automático for this pix (decision 0096's opt-in): its QR code is the mandate's.
   * Kept with the confirmation on the checkout (`confirmation.pix_automatico`), which is what is read after.
   */
  pixAutomatico?: boolean;
  /** The buyer's request, for the gateway's risk analysis (decision 0069); older confirmations carry none. */
  buyerDevice?: BuyerDevice;
}

/** Where the buyer confirmed from: the request's IP address and the gateway script's device id. */
export interface BuyerDevice {
  ip: string | null;
  sessionId: string | null;
}

/** The gateway_payment_data the buyer and the merchant see: the spec's four fields, and what pays a pix/boleto. */
export type GatewayPaymentData = {
  transaction_id: string;
  status: string;
  authorization_code: string | null;
  installments: number;
  /** `url`: the gateway's own page of the pix, where it has one. */
  pix?: { qr_code: string; qr_code_image: string; expires_at: string; url?: string };
  boleto?: { barcode: string; digitable_line: string; due_date: string; url: string };
  /** A card payment waiting on the buyer's 3-D Secure challenge: the page posts `creq` to `url` in a frame. */
  three_ds?: { url: string; creq: string };
  /** A card payment the gateway is still reviewing: waited for until then, then cancelled (decision 0070). */
  review?: { until: string };
  /**
   * A Pix Automático checkout (decision 0096): the pix's QR code also authorizes the mandate (the
   * gateway's id), which charges `amount` cents every period from `start_date` on. Kept on the checkout
   * once it succeeds: its subscription adopts the mandate.
   */
  pix_automatico?: { mandate_id: string; periodicity: MandatePeriodicity; start_date: string; amount: number };
};

/**
 * A payment as the workflow knows it, straight from the gateway: enough to record it and to answer
 * the buyer without reading anything again. Of a card, only the token and what DESIGN.md lets us keep.
 */
export interface PaymentSummary {
  id: string;
  status: string;
  paymentType: 'credit' | 'pix' | 'boleto';
  /** What the buyer pays in all, installment interest included. */
  amount: number;
  currency: string;
  installments: number;
  authorizationCode: string | null;
  declineReason: string | null;
  capturedAmount: number;
  refundedAmount: number;
  confirmedAt: string | null;
  card: PaymentCard | null;
  paymentData: GatewayPaymentData;
  /**
   * A browser's single-use token charged and approved: the card kept with the gateway afterwards (its
   * id, for the renewals), or null when the gateway would not keep it; absent for any other payment.
   */
  keptCardId?: string | null;
}

/**
 * The answer to a confirmation: the checkout as it stands after it. `succeeded` paid; `pending` a
 * pix/boleto issued and awaiting payment; `processing` the gateway's answer was lost and is being
 * resolved (the checkout stays confirmed and the buyer polls it); `declined` open again, or failed
 * when the attempts ran out.
 */
export interface ConfirmCheckoutResult {
  outcome: 'succeeded' | 'pending' | 'processing' | 'declined';
  checkout: {
    id: string;
    status: CheckoutStatus;
    payment_method: ConfirmPaymentMethod;
    amount: number;
    currency: string;
    gateway_payment_data: GatewayPaymentData | null;
    decline_reason: string | null;
    /**
     * The checkout's customer and subscription as its record shows them after the confirmation: the
     * sale's (found or made) once it succeeded, else those the checkout was opened with.
     */
    customer_id: string | null;
    subscription_id: string | null;
  };
  payment: PaymentSummary | null;
}

/** Rejection codes of the confirmation; the API answers the first two with 409 and the others with 422. */
export const CHECKOUT_NOT_OPEN = 'checkout_not_open';
export const CONFIRMATION_IN_PROGRESS = 'confirmation_in_progress';
export const DISCOUNT_REJECTED = 'discount_rejected';
export const CONFIRMATION_INVALID = 'confirmation_invalid';
/** A confirmation with `card_token.kept_card` on a checkout whose subscription keeps no such card (decision 0078). */
export const NO_KEPT_CARD = 'no_kept_card';

/**
 * Declined confirmations one checkout accepts before it fails for good (reason `too_many_attempts`):
 * a card-testing bot cannot grow a workflow's history without bound, and a real buyer who is refused
 * ten times is better served by a new checkout.
 */
export const MAX_DECLINED_CONFIRMATIONS = 10;
export const TOO_MANY_ATTEMPTS = 'too_many_attempts';

/**
 * Whether a checkout total is charged at the gateway. A total of zero (a 100 % discount) completes
 * without a charge; a recurring one keeps the card token for the renewals.
 */
export const requiresCharge = (amount: number): boolean => amount > 0;

/** Gateway idempotency keys: the checkout and the business step, never a Temporal attempt number. */
export const checkoutKeys = {
  /** `slot` numbers the checkout's payment tries; a slot's key is reused until its outcome is known. */
  charge: (checkoutId: string, slot: number) => `checkout:${checkoutId}:charge:${slot}`,
  capture: (checkoutId: string, slot: number) => `checkout:${checkoutId}:capture:${slot}`,
  void: (checkoutId: string, slot: number) => `checkout:${checkoutId}:void:${slot}`,
  pix: (checkoutId: string, slot: number) => `checkout:${checkoutId}:pix:${slot}`,
  boleto: (checkoutId: string, slot: number) => `checkout:${checkoutId}:boleto:${slot}`,
  cancel: (checkoutId: string, transactionId: string) => `checkout:${checkoutId}:cancel:${transactionId}`,
  compensation: (checkoutId: string, transactionId: string) => `checkout:${checkoutId}:compensate:${transactionId}`,
  buyer: (checkoutId: string) => `checkout:${checkoutId}:buyer`,
  /** Keeping the card a slot's browser token paid with (decision 0074). */
  keepCard: (checkoutId: string, slot: number) => `checkout:${checkoutId}:keep-card:${slot}`,
  subscription: (checkoutId: string) => `checkout:${checkoutId}:subscription`,
  /** A Pix Automático checkout's mandate, whose QR code also pays the slot's first period (journey 3). */
  mandate: (checkoutId: string, slot: number) => `checkout:${checkoutId}:mandate:${slot}`,
};

/** The gateway key of a slot's payment call, by method. */
export function paymentKey(checkoutId: string, method: ConfirmPaymentMethod, slot: number): string {
  if (method === 'credit_card') return checkoutKeys.charge(checkoutId, slot);
  return method === 'pix' ? checkoutKeys.pix(checkoutId, slot) : checkoutKeys.boleto(checkoutId, slot);
}

export type DiscountCodeRefusal =
  'discount_codes_not_allowed' | 'discount_not_found' | 'discount_already_applied' | DiscountInapplicability;

/**
 * A discount code applied at payment time to an open checkout: the new discount and total, or why
 * not. A code the checkout already carries changes nothing. A total of zero is allowed
 * (`requiresCharge` says it is not charged).
 */
export function applyDiscountCode(
  checkout: {
    allowDiscountCodes: boolean;
    discountId: string | null;
    subtotalAmount: number;
    productId: string;
    currency: string;
  },
  discount: ({ id: string } & DiscountRule) | null,
  now: Date,
):
  | { ok: true; discountId: string; discountAmount: number; amount: number; changed: boolean }
  | { ok: false; reason: DiscountCodeRefusal } {
  if (!checkout.allowDiscountCodes) return { ok: false, reason: 'discount_codes_not_allowed' };
  if (!discount) return { ok: false, reason: 'discount_not_found' };
  const off = discountAmount(checkout.subtotalAmount, checkout.currency, discount);
  if (checkout.discountId === discount.id) {
    return {
      ok: true,
      discountId: discount.id,
      discountAmount: off,
      amount: checkout.subtotalAmount - off,
      changed: false,
    };
  }
  if (checkout.discountId) return { ok: false, reason: 'discount_already_applied' };
  const applicable = discountApplicability(discount, {
    productId: checkout.productId,
    currency: checkout.currency,
    now,
  });
  if (!applicable.ok) return { ok: false, reason: applicable.reason };
  return {
    ok: true,
    discountId: discount.id,
    discountAmount: off,
    amount: checkout.subtotalAmount - off,
    changed: true,
  };
}

// ── One subscription per customer ─────────────────────────────────────────────────────────────

/** A checkout refused because its customer already has a live subscription (answered 422). */
export const SUBSCRIPTION_EXISTS = 'subscription_exists';

/**
 * Whether the organization lets a customer hold more than one live subscription
 * (subscription_settings.allow_multiple_subscriptions). Missing means no: the default every
 * organization starts with and its record shows (DEFAULT_SUBSCRIPTION_SETTINGS).
 */
export const DEFAULT_ALLOW_MULTIPLE_SUBSCRIPTIONS = false;
export const allowsMultipleSubscriptions = (settings: Record<string, unknown> | null | undefined): boolean =>
  typeof settings?.allow_multiple_subscriptions === 'boolean'
    ? settings.allow_multiple_subscriptions
    : DEFAULT_ALLOW_MULTIPLE_SUBSCRIPTIONS;

/**
 * Whether a checkout is held to one live subscription per customer: a recurring price that is not a
 * renewal (a renewal pays the same subscription again), in an organization that does not allow more.
 * Such a checkout is refused when its customer already has a live subscription (isLive: neither
 * canceled nor incomplete).
 */
export const limitedToOneSubscription = (c: { allowMultiple: boolean; recurring: boolean; renewal: boolean }) =>
  !c.allowMultiple && c.recurring && !c.renewal;

/**
 * A renewal checkout takes over the subscription's discount only when it lasts for the
 * subscription's life; `once` was spent on the first period (`repeating` is the renewals' rule).
 */
export const discountCarriesOverToRenewal = (discount: { duration: 'once' | 'forever' | 'repeating' }): boolean =>
  discount.duration === 'forever';

/**
 * The first period of a subscription bought at `now`: a trial when the checkout has one (trialing,
 * the first charge at its end), else one interval of the price (active).
 */
export function firstSubscriptionPeriod(
  price: { interval: PeriodInterval; intervalCount: number },
  trial: { interval: PeriodInterval; count: number } | null,
  now: Date,
): { status: 'trialing' | 'active'; periodEnd: Date; trialEnd: Date | null } {
  const trialEnd = trial ? addInterval(now, trial.interval, trial.count) : null;
  if (trialEnd) return { status: 'trialing', periodEnd: trialEnd, trialEnd };
  return { status: 'active', periodEnd: addInterval(now, price.interval, price.intervalCount), trialEnd: null };
}

/**
 * Where the buyer goes once paid: the checkout's success_url with every `{CHECKOUT_ID}` replaced by
 * the checkout's id (as Stripe and Polar do), so the merchant's page can look the payment up.
 */
export function successUrlFor(successUrl: string, checkoutId: string): string {
  return successUrl.replaceAll('{CHECKOUT_ID}', encodeURIComponent(checkoutId));
}

/** Why a confirmed checkout is open again when the buyer left a pending pix or boleto for a card. */
export const METHOD_CHANGED = 'method_changed';

/**
 * A buyer waiting on a pix or boleto may pay by card instead, and one whose card is under review may
 * pay with another card, a pix or a boleto: the pending charge is cancelled first and the checkout
 * takes the new try (decision 0070). Any other confirmation needs an open checkout.
 */
export function confirmationAllowed(
  checkout: { status: CheckoutStatus; paymentMethod: string | null; pendingPayment: boolean },
  method: ConfirmPaymentMethod,
): boolean {
  if (checkout.status === 'open') return true;
  if (checkout.status !== 'confirmed' || !checkout.pendingPayment) return false;
  if (checkout.paymentMethod === 'credit_card') return true;
  return (checkout.paymentMethod === 'pix' || checkout.paymentMethod === 'boleto') && method === 'credit_card';
}
