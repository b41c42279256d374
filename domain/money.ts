/** Integer minor-unit (centavos) arithmetic: amounts never pass through floats. */

export const MAX_INSTALLMENTS = 12;

/** True for a safe, non-negative integer amount in minor units. */
export function assertMinorUnits(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/** unitAmount × quantity; throws RangeError on non-integer input or when the result is not exactly representable. */
export function multiplyAmount(unitAmount: number, quantity: number): number {
  if (!assertMinorUnits(unitAmount)) throw new RangeError('unitAmount must be a non-negative safe integer');
  if (!assertMinorUnits(quantity)) throw new RangeError('quantity must be a non-negative safe integer');
  const total = unitAmount * quantity;
  if (!Number.isSafeInteger(total)) throw new RangeError('amount overflow: result exceeds Number.MAX_SAFE_INTEGER');
  return total;
}

/**
 * Splits `total` into `installments` integer parts summing exactly to `total`;
 * the remainder cents go to the first installments (so parts differ by at most 1).
 */
export function installmentAmounts(total: number, installments: number): number[] {
  if (!assertMinorUnits(total)) throw new RangeError('total must be a non-negative safe integer');
  if (!Number.isInteger(installments) || installments < 1 || installments > MAX_INSTALLMENTS) {
    throw new RangeError(`installments must be an integer between 1 and ${MAX_INSTALLMENTS}`);
  }
  const base = Math.floor(total / installments);
  const remainder = total % installments;
  return Array.from({ length: installments }, (_, i) => (i < remainder ? base + 1 : base));
}

/**
 * `amount` minor units of `currency` for people to read ("R$1,234.56"; "R$ 1.234,56" in pt-BR). The decimal is built from the
 * integer as a string (Intl formats decimal strings exactly), never by dividing into a float; the
 * currency's own number of decimals (0 for JPY, 2 for BRL) comes from ICU.
 */
export function formatAmount(amount: number, currency: string, locale = 'en-US'): string {
  if (!Number.isSafeInteger(amount)) throw new RangeError('amount must be a safe integer');
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() });
  const decimals = format.resolvedOptions().maximumFractionDigits ?? 2;
  const digits = String(Math.abs(amount)).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const decimal = decimals > 0 ? `${whole}.${digits.slice(-decimals)}` : whole;
  return format.format(`${amount < 0 ? '-' : ''}${decimal}` as `${number}`);
}
