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
