import type { ConfirmCheckoutInput, ConfirmPaymentMethod } from '../domain/checkout.ts';
import { records, type Attempt } from './checkout-activity-proxies.ts';

/**
 * What a lost run left on a checkout it had confirmed, for the run the sweep starts again on it: a pix
 * or boleto issued and waited for, or a payment call whose answer it never recorded (the new run asks
 * the gateway what became of it, by the call's key). Null when it left neither.
 */
export type LostPayment = { pending: PendingPayment } | { inFlight: Attempt } | null;

/**
 * A pix or boleto issued and waited for (paid, or failed at its deadline), or a card under review (its
 * outcome, or cancelled at its deadline: decision 0070).
 */
export type PendingPayment = { attempt: Attempt; transactionId: string; kind: ConfirmPaymentMethod; payBy: number };

export async function lostPayment(checkoutId: string): Promise<LostPayment> {
  const issued = await records.issuedPendingPayment(checkoutId);
  if (issued) {
    // What the confirmation fixed is read again (the checkout is confirmed, so nothing changes).
    const request: ConfirmCheckoutInput = {
      paymentMethod: issued.kind,
      card: issued.card ?? null,
      installments: issued.installments ?? 1,
      buyer: { email: null, name: null, taxId: null },
      discountCode: null,
    };
    const prepared = await records.prepareConfirmation(checkoutId, request);
    return {
      pending: {
        attempt: { request, prepared, slot: prepared.slot ?? 0 },
        transactionId: issued.transactionId,
        kind: issued.kind,
        payBy: Date.parse(issued.payBy),
      },
    };
  }
  const request = await records.paymentInFlight(checkoutId);
  if (!request) return null;
  const prepared = await records.prepareConfirmation(checkoutId, request);
  return { inFlight: { request, prepared, slot: prepared.slot ?? 0 } };
}
