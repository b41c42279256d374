import { addInterval, isoDate } from './periods.ts';

/**
 * How long the pix or boleto a checkout issues may be paid: the checkout's own rules (the gateway's
 * grace after a boleto's due date is the gateway's: gateway/payment-documents.ts).
 */

/** A pix is valid until the checkout would have expired, and never longer than this. */
export const PIX_MAX_VALIDITY_SECONDS = 30 * 60;

/** Why a confirmed checkout is open again when its pix expired unpaid: the buyer may ask for a new code. */
export const PIX_EXPIRED = 'pix_expired';

/** An expired pix gives way to a new code only if the checkout stays open at least this long after. */
export const PIX_RENEWAL_MIN_MS = 60_000;

/**
 * A pix that expired unpaid reopens its checkout for a new code (issue 34 §1) while the checkout has
 * time left for it; otherwise the checkout fails as expired.
 */
export const pixRenewable = (checkoutExpiresAt: number, now: number): boolean =>
  checkoutExpiresAt - now >= PIX_RENEWAL_MIN_MS;

/** A boleto falls due this many days after it is issued. */
export const BOLETO_DUE_DAYS = 3;

/** The pix's validity in whole seconds: until the checkout's expiry (at least a second), capped. */
export function pixValiditySeconds(checkoutExpiresAt: Date, now: Date): number {
  const untilExpiry = Math.ceil((checkoutExpiresAt.getTime() - now.getTime()) / 1000);
  return Math.min(Math.max(untilExpiry, 1), PIX_MAX_VALIDITY_SECONDS);
}

/** The boleto's due date (YYYY-MM-DD, UTC) when issued at `now`. */
export const boletoDueDate = (now: Date): string => isoDate(addInterval(now, 'day', BOLETO_DUE_DAYS));
