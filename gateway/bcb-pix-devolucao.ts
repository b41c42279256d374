import type { GatewayMandateCharge, GatewayMandateRefund, MandateRefundStatus } from '../contracts/pix-automatico.ts';
import {
  bcbDevolucao,
  type BcbDevolucao,
  type BcbDevolucaoSolicitada,
  type BcbDevolucaoStatus,
} from './bcb-pix-automatico-schemas.ts';
import { bcbAmountOf, centsOf } from './bcb-pix-automatico-words.ts';
import { GatewayError } from './port.ts';

/**
 * A paid cycle's charge given back (decision 0099): the BCB's pix devolução, `PUT /pix/{e2eid}/devolucao/{id}`
 * with DevolucaoSolicitada and `GET` of the same path, both answering a Devolucao (bacen/pix-api
 * openapi.yaml 2.9). The refund is made against the paid attempt's end-to-end id; its id is ours,
 * formed from our key (bcbDevolucaoIdOf), so a repeated call names the same refund.
 */

const STATUS_WORDS: Record<BcbDevolucaoStatus, MandateRefundStatus> = {
  EM_PROCESSAMENTO: 'processing',
  DEVOLVIDO: 'refunded',
  NAO_REALIZADO: 'failed',
};

const BCB_STATUS: Record<MandateRefundStatus, BcbDevolucaoStatus> = {
  processing: 'EM_PROCESSAMENTO',
  refunded: 'DEVOLVIDO',
  failed: 'NAO_REALIZADO',
};

/** The body that asks for `amount` cents back (natureza ORIGINAL: a common pix, MD06). */
export const devolucaoSolicitadaOf = (amount: number): BcbDevolucaoSolicitada => ({
  valor: bcbAmountOf(amount),
  natureza: 'ORIGINAL',
});

export function parseBcbDevolucao(json: unknown): BcbDevolucao {
  const result = bcbDevolucao.safeParse(json);
  if (!result.success) throw new GatewayError(`Pix: the devolução is not the BCB's: ${result.error.message}`, false);
  return result.data;
}

/** The charge's paid attempt (the one a refund is made against); a charge not paid is refused. */
export function paidEndToEndId(charge: GatewayMandateCharge): string {
  const paid = charge.status === 'completed' ? charge.attempts.find((a) => a.status === 'paid') : undefined;
  if (!paid) throw new GatewayError(`Cannot refund the charge ${charge.id}: it is ${charge.status}, not paid`, false);
  return paid.endToEndId;
}

/** A Devolucao in our words. */
export function refundFromDevolucao(
  devolucao: BcbDevolucao,
  chargeId: string,
  endToEndId: string,
): GatewayMandateRefund {
  return {
    id: devolucao.id,
    chargeId,
    endToEndId,
    returnId: devolucao.rtrId,
    amount: centsOf(devolucao.valor),
    status: STATUS_WORDS[devolucao.status],
    requestedAt: devolucao.horario.solicitacao ?? '',
    refundedAt: devolucao.horario.liquidacao ?? null,
    reason: devolucao.motivo ?? null,
  };
}

/** Our refund as the BCB's Devolucao (the simulator's server). */
export function devolucaoOf(refund: GatewayMandateRefund): BcbDevolucao {
  return {
    id: refund.id,
    rtrId: refund.returnId,
    valor: bcbAmountOf(refund.amount),
    natureza: 'ORIGINAL',
    horario: {
      solicitacao: refund.requestedAt,
      ...(refund.refundedAt ? { liquidacao: refund.refundedAt } : {}),
    },
    status: BCB_STATUS[refund.status],
    ...(refund.reason ? { motivo: refund.reason } : {}),
  };
}
