import { periodicityOf } from './pix-automatico.ts';
import type { PeriodInterval } from './periods.ts';
import type { RecurrenceBilling } from './subscriptions.ts';
/**
 * What may be sold through a new checkout, and for how long it stays open: the rules createCheckout
 * applies to every caller (the API, a checkout link, a renewal checkout), in one place.
 */
export interface CheckoutRefusal {
  /** The API's machine-readable code (a 422). */
  code: string;
  message: string;
  detail: string;
}

interface PriceFacts {
  id: string;
  type: 'one_time' | 'recurring';
  active: boolean;
  interval?: PeriodInterval | null;
  intervalCount?: number | null;
}

/** What the gateway can bill a subscription's renewals with (asked of its adapter, gateway/capabilities.ts). */
export interface RecurrenceRails {
  /** The gateway's own recurrence. */
  gatewayRecurrence: boolean;
  /** Pix Automático mandates (decision 0096). */
  pixAutomatico: boolean;
}

/** A trial, or billing by manual renewal checkouts, is a subscription's: it needs a recurring price. */
export function termsRefusal(
  price: Pick<PriceFacts, 'id' | 'type'>,
  terms: { trial: boolean; recurrenceBilling?: RecurrenceBilling },
): CheckoutRefusal | null {
  if (price.type === 'recurring') {
    if (!terms.trial || terms.recurrenceBilling !== 'pix_automatico') return null;
    // Its first payment authorizes the mandate (journey 3): a trial's checkout has none to pay.
    return {
      code: 'pix_automatico_not_allowed',
      message: 'A Pix Automático checkout has no trial',
      detail: "The mandate is authorized with the first period's payment",
    };
  }
  const detail = `price ${price.id} is one_time`;
  if (terms.trial) return { code: 'trial_not_allowed', message: 'A trial needs a recurring price', detail };
  if (terms.recurrenceBilling === 'manual' || terms.recurrenceBilling === 'pix_automatico') {
    return {
      code: 'recurrence_billing_not_allowed',
      message: `recurrence_billing ${terms.recurrenceBilling} needs a recurring price`,
      detail,
    };
  }
  return null;
}

/**
 * Who bills a recurring price's renewals: the gateway's own recurrence where its adapter offers
 * recurring billing (`gatewayBillsRecurrence`, asked of the adapter), else this engine's manual
 * renewals charging the kept card. Unsent, it follows the gateway; `gateway` where the gateway
 * bills none is refused rather than turned into something else.
 */
export function recurrenceBillingOf(
  requested: RecurrenceBilling | undefined,
  price: Pick<PriceFacts, 'id' | 'type' | 'interval' | 'intervalCount'>,
  rails: RecurrenceRails,
): RecurrenceBilling | CheckoutRefusal {
  if (requested === 'pix_automatico') return pixAutomaticoRefusal(price, rails) ?? requested;
  if (requested === 'manual' || price.type !== 'recurring') return requested ?? 'gateway';
  if (rails.gatewayRecurrence) return requested ?? 'gateway';
  if (requested === undefined) return 'manual';
  return {
    code: 'gateway_recurrence_unavailable',
    message: 'This payment gateway bills no recurrence',
    detail: "Send recurrence_billing manual (or leave it out): renewals charge the buyer's kept card",
  };
}

/**
 * Pix Automático bills a recurring price whose interval the BCB has a periodicity for (weekly, monthly,
 * quarterly, semiannual, yearly), on a gateway that offers it; the buyer then pays with pix.
 */
function pixAutomaticoRefusal(
  price: Pick<PriceFacts, 'id' | 'type' | 'interval' | 'intervalCount'>,
  rails: Pick<RecurrenceRails, 'pixAutomatico'>,
): CheckoutRefusal | null {
  if (!rails.pixAutomatico) {
    return {
      code: 'pix_automatico_unavailable',
      message: 'This payment gateway offers no Pix Automático',
      detail: 'Send recurrence_billing manual or gateway',
    };
  }
  if (price.type === 'recurring' && price.interval && periodicityOf(price.interval, price.intervalCount ?? 1)) {
    return null;
  }
  return {
    code: 'pix_automatico_not_allowed',
    message: 'Pix Automático bills weekly, monthly, quarterly, semiannual or yearly prices only',
    detail: `price ${price.id} is ${price.type === 'recurring' ? `every ${price.intervalCount ?? 1} ${price.interval}` : 'one_time'}`,
  };
}

/** What the buyer's own choice of Pix Automático at the confirmation is judged on (decision 0096, the opt-in). */
export interface PixAutomaticoOptIn {
  price: Pick<PriceFacts, 'id' | 'type' | 'interval' | 'intervalCount'>;
  /** What the checkout was created with: `pix_automatico` already bills by mandate, nothing to opt into. */
  recurrenceBilling: RecurrenceBilling;
  trial: boolean;
  /** A renewal's or an upgrade's checkout: it pays a subscription that keeps its own billing. */
  ofSubscription: boolean;
}

/**
 * Whether the buyer may pay a checkout's pix with its mandate (journey 3) though the merchant left
 * recurrence_billing `manual` or `gateway`: the same rail and interval rules as a Pix Automático checkout,
 * no trial (the first payment authorizes the mandate), and a new subscription. Null: allowed.
 */
export function pixAutomaticoOptInRefusal(
  c: PixAutomaticoOptIn,
  rails: Pick<RecurrenceRails, 'pixAutomatico'>,
): CheckoutRefusal | null {
  const rail = pixAutomaticoRefusal(c.price, rails);
  if (rail?.code === 'pix_automatico_unavailable') return { ...rail, detail: 'Pay with pix without pix_automatico' };
  if (rail) return rail;
  if (c.trial) {
    const detail = "The mandate is authorized with the first period's payment, and a trial has none";
    return { code: 'pix_automatico_not_allowed', message: 'A checkout with a trial has no Pix Automático', detail };
  }
  if (c.ofSubscription) {
    const detail = "A renewal's or an upgrade's checkout pays a subscription that keeps its own billing";
    return { code: 'pix_automatico_not_allowed', message: "This checkout's subscription has its billing", detail };
  }
  return null;
}

/** Whether the hosted page offers the buyer Pix Automático beside pix (a checkout that is not one already). */
export const offersPixAutomaticoOptIn = (c: PixAutomaticoOptIn, rails: Pick<RecurrenceRails, 'pixAutomatico'>) =>
  c.recurrenceBilling !== 'pix_automatico' && pixAutomaticoOptInRefusal(c, rails) === null;

/**
 * An archived product or price is no longer sold to new buyers; a renewal checkout still pays for it,
 * since the subscription that has it keeps renewing.
 */
export function offerRefusal(
  product: { id: string; isArchived: boolean },
  price: Pick<PriceFacts, 'id' | 'active'> | null,
  renewal: boolean,
): CheckoutRefusal | null {
  if (renewal) return null;
  if (product.isArchived) {
    return { code: 'product_archived', message: 'The product is archived', detail: `product ${product.id}` };
  }
  if (price && !price.active) {
    return { code: 'price_inactive', message: 'The price is archived', detail: `price ${price.id}` };
  }
  return null;
}

/** A checkout is open an hour unless its creator says otherwise (the API allows 10 minutes to a day). */
export const DEFAULT_CHECKOUT_EXPIRY_MINUTES = 60;

export function checkoutExpiresAt(now: Date, expiresInMinutes: number = DEFAULT_CHECKOUT_EXPIRY_MINUTES): Date {
  return new Date(now.getTime() + expiresInMinutes * 60_000);
}

/**
 * A renewal checkout stays open until its subscription's deadline (the end of dunning), rounded up to
 * the minute, and at least the API's minimum of ten minutes: it may be longer than a merchant's day.
 */
export function renewalCheckoutExpiryMinutes(deadline: Date, now: Date): number {
  return Math.max(10, Math.ceil((deadline.getTime() - now.getTime()) / 60_000));
}
