import { requiresCharge } from '../../../domain/checkout.ts';
import { GatewayError } from '../../../gateway/port.ts';

/** What the simulator refuses before a call reaches its books (so no fault or idempotency key is spent). */

export const isoDate = /^\d{4}-\d{2}-\d{2}$/;

/** The engine's own rule (domain/checkout.ts): a total of zero is never sent to be charged. */
export function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || !requiresCharge(amount))
    throw new GatewayError('amount must be a positive integer of cents', false);
}
