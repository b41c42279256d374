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
  if (price.type === 'recurring') return null;
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
  rails: RecurrenceRails,
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
