import { GatewayError } from './port.ts';

/**
 * Money at Mercado Pago's edge. We keep integer cents everywhere; Mercado Pago takes and answers
 * decimal reais (`transaction_amount: 10.5`). Both ways go through the decimal string, never through
 * a float multiplication (`19.99 * 100` is 1998.9999999999998): cents → "19.99" → 19.99, and
 * 19.99 → "19.99" → 1999. A double's shortest representation of a two-decimal number up to 2^53
 * cents is that decimal itself, so the JSON the SDK writes carries the exact amount.
 */

/** Integer cents (≥ 0) → reais, as the number whose shortest decimal is `123.45`. */
export function centsToReais(cents: number): number {
  if (!Number.isSafeInteger(cents) || cents < 0) {
    throw new GatewayError(`Mercado Pago: ${cents} is not an amount in whole cents`, false);
  }
  const digits = String(cents).padStart(3, '0');
  return Number(`${digits.slice(0, -2)}.${digits.slice(-2)}`);
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Reais as Mercado Pago answers them → integer cents. Two decimals are exact; a third or further
 * decimal (an installment amount with interest, e.g. 34.056) rounds half up, on the digits.
 */
export function reaisToCents(reais: number): number {
  const match = DECIMAL.exec(String(reais));
  if (!match || reais < 0) {
    throw new GatewayError(`Mercado Pago answered an amount that is not a decimal of reais: ${reais}`, false);
  }
  const [, whole, fraction = ''] = match;
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
  return fraction.length > 2 && Number(fraction[2]) >= 5 ? cents + 1 : cents;
}

/** Optional amounts (`transaction_amount_refunded` may be absent): absent is zero. */
export const reaisToCentsOrZero = (reais: number | null | undefined): number =>
  reais === undefined || reais === null ? 0 : reaisToCents(reais);
