import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bcbDevolucaoSolicitada } from '../../../gateway/bcb-pix-automatico-schemas.ts';
import { centsOf } from '../../../gateway/bcb-pix-automatico-words.ts';
import { devolucaoOf } from '../../../gateway/bcb-pix-devolucao.ts';
import { ROUTES } from '../../../gateway/http-protocol.ts';
import type { PaymentGateway } from '../../../gateway/port.ts';
import { answerProblems, BcbNotFound, bodyOf } from './server-bcb-problems.ts';
import type { SimulatorPixAutomatico } from './simulator-pix-gateway.ts';

/**
 * The simulated server's refunds of received pix (decision 0099), in the BCB's Pix API (bacen/pix-api
 * openapi.yaml 2.9): `PUT /v2/pix/{e2eid}/devolucao/{id}` with DevolucaoSolicitada (201, a Devolucao)
 * and `GET` of the same path (200, a Devolucao; 404 when there is none). A PUT is keyed by its path: a
 * repeated one answers the first refund. The pix is a paid Pix Automático attempt (its cobr's `pix`).
 * Errors are the BCB's Problema: a refusal (an unknown or unpaid pix, more than is left) PixDevolucaoInvalida,
 * an unknown refund PixDevolucaoNaoEncontrada.
 */

type PixRefunds = Pick<SimulatorPixAutomatico, 'refundPix' | 'getPixRefund'>;

const refundsPix = (gateway: PaymentGateway): gateway is PaymentGateway & PixRefunds =>
  'refundPix' in gateway && 'getPixRefund' in gateway;

const paramsOf = (request: FastifyRequest) => request.params as { id: string; data: string };

export function pixRefundRoutes(app: FastifyInstance, gateway: PaymentGateway): void {
  if (!refundsPix(gateway)) return;
  // A context of their own, so that their errors are the BCB's Problema.
  void app.register(async (bcb) => {
    answerProblems(bcb);
    bcb.put(ROUTES.refundPix.path, async (request, reply) => {
      const { id: endToEndId, data: id } = paramsOf(request);
      const wanted = bodyOf(bcbDevolucaoSolicitada, request);
      const refund = await gateway.refundPix(endToEndId, id, centsOf(wanted.valor));
      return reply.status(201).send(devolucaoOf(refund));
    });
    bcb.get(ROUTES.getPixRefund.path, async (request) => {
      const { id: endToEndId, data: id } = paramsOf(request);
      const refund = await gateway.getPixRefund(endToEndId, id);
      if (!refund) throw new BcbNotFound(`Devolução ${id} não encontrada para o e2eid ${endToEndId}.`);
      return devolucaoOf(refund);
    });
  });
}
