import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { chargeOfGateway } from '../db/mandate/charges.ts';
import { PROCESSING_ERROR } from '../domain/failures.ts';
import { offersPixAutomatico } from '../gateway/capabilities.ts';
import type { GatewayMandateRefund, PaymentGateway } from '../gateway/port.ts';
import { callGateway, GATEWAY_ERROR, GATEWAY_REFUSAL } from './gateway-failures.ts';

/**
 * Refunds of payments a Pix Automático charge made (decision 0099). Such a payment's gateway id is its
 * cobr's txid, which no card or pix refund at the gateway knows: it is given back as a pix devolução
 * of the charge's paid attempt, through the port's refundMandateCharge.
 */

/** The gateway's id of the mandate charge that made this payment; null for any other payment. */
export async function mandateChargeOfPayment(em: EntityManager, gatewayTransactionId: string): Promise<string | null> {
  const charge = await chargeOfGateway(em, gatewayTransactionId);
  return charge ? charge.gatewayChargeId : null;
}

/**
 * `amount` of the charge given back, keyed by `idempotencyKey` (a retry gets the first refund). A
 * devolução the rail did not make (NAO_REALIZADO) or the gateway refused is a GatewayRefusal; one still
 * in process is a retryable failure, so the activity asks again under the same key until it is decided.
 */
export async function refundMandateCharge(
  gateway: PaymentGateway,
  chargeId: string,
  amount: number,
  idempotencyKey: string,
): Promise<GatewayMandateRefund> {
  if (!offersPixAutomatico(gateway)) {
    throw ApplicationFailure.create({
      message: `The gateway offers no Pix Automático to refund the charge ${chargeId}`,
      type: GATEWAY_REFUSAL,
      details: [PROCESSING_ERROR],
    });
  }
  const refund = await callGateway(() => gateway.refundMandateCharge(chargeId, amount, idempotencyKey));
  if (refund.status === 'failed') {
    throw ApplicationFailure.create({
      message: `The pix devolução ${refund.id} was not made${refund.reason ? `: ${refund.reason}` : ''}`,
      type: GATEWAY_REFUSAL,
      details: [PROCESSING_ERROR],
    });
  }
  if (refund.status === 'processing') {
    throw ApplicationFailure.create({
      message: `The pix devolução ${refund.id} is still processing`,
      type: GATEWAY_ERROR,
    });
  }
  return refund;
}
