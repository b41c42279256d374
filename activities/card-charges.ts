import { cardPaymentsOf } from '../gateway/capabilities.ts';
import { GatewayError, type CardChargeInput, type GatewayTransaction, type PaymentGateway } from '../gateway/port.ts';
import { callGateway } from './gateway-failures.ts';

/**
 * The one path by which this engine charges a card: checkouts, renewals, a subscription's extra
 * charges and direct transactions all come here. Every call takes the caller's idempotency keys,
 * derived from its workflow id and business step (never an attempt number), so a retried or replayed
 * activity gets the gateway's first answer and never charges twice. Gateway failures reach Temporal
 * as callGateway makes them: retryable GatewayError, or a definite GatewayRefusal.
 */

/** The keys of settling a pre-authorization: capturing it, and voiding it when the capture is refused. */
export interface SettlementKeys {
  capture: string;
  void: string;
}

/** The keys of one card charge: the charge itself and the settling of its pre-authorization. */
export interface CardChargeKeys extends SettlementKeys {
  charge: string;
}

/**
 * Charges the card and, when the gateway only authorized it (some cards always ask for it), captures
 * the authorization; a capture the gateway refuses voids it, so no hold is left on the buyer's card,
 * and the charge is answered as declined. A decline is an answer (status failed), not an error.
 *
 * Given only its charge key, a pre-authorization is answered as the gateway gave it (a direct
 * transaction: its API shows `pre_authorized`).
 */
export async function chargeCard(
  gateway: PaymentGateway,
  input: CardChargeInput,
  keys: CardChargeKeys | Pick<CardChargeKeys, 'charge'>,
): Promise<GatewayTransaction> {
  const charged = await callGateway(async () => cardPaymentsOf(gateway).chargeCard(input, keys.charge));
  if (charged.status !== 'pre_authorized' || !input.capture || !('capture' in keys)) return charged;
  return captureOrVoid(gateway, charged, keys);
}

/** Captures a pre-authorization in full; when the gateway refuses the capture, voids it and reports the decline. */
export async function captureOrVoid(
  gateway: PaymentGateway,
  authorized: GatewayTransaction,
  keys: SettlementKeys,
): Promise<GatewayTransaction> {
  try {
    return await cardPaymentsOf(gateway).capture(authorized.id, null, keys.capture);
  } catch (err) {
    if (!(err instanceof GatewayError) || err.retryable) return callGateway(() => Promise.reject(err));
    const voided = await voidCharge(gateway, authorized.id, keys.void);
    return { ...voided, status: 'failed', declineReason: voided.declineReason ?? 'card_declined' };
  }
}

/** Voids a pre-authorization (or an unpaid pix or boleto) at the gateway. */
export function voidCharge(gateway: PaymentGateway, transactionId: string, key: string): Promise<GatewayTransaction> {
  return callGateway(() => gateway.cancel(transactionId, key));
}

/**
 * The truth about a charge whose answer was lost: the transaction the gateway made under the key, as
 * it stands now (a captured pre-authorization shows as succeeded), or null when it never processed
 * a call with that key.
 */
export function findChargeByKey(gateway: PaymentGateway, key: string): Promise<GatewayTransaction | null> {
  return callGateway(() => gateway.findTransactionByIdempotencyKey(key));
}
