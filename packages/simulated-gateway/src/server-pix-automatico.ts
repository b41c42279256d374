import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { cobrFromCharge, recFromMandate } from '../../../gateway/bcb-pix-automatico.ts';
import {
  bcbCancelamento,
  bcbCobRSolicitada,
  bcbCobSolicitada,
  bcbCobVSolicitada,
  cobGeradaOf,
  cobVGeradaOf,
  pixInputOfCob,
  pixInputOfCobV,
  bcbRecSolicitada,
  bcbSolicRecSolicitada,
  bcbWebhookSolicitado,
  chargeInputOfCobr,
  mandateInputOfRec,
  SANDBOX_RECEIVER,
  solicRecFromMandate,
} from '../../../gateway/bcb-pix-automatico-requests.ts';
import { offersPixAutomatico, offersSandboxPixAutomatico } from '../../../gateway/capabilities.ts';
import {
  mandateChargeToWire,
  mandateToWire,
  wireAuthorizeMandate,
  wirePayerMaximum,
  wireSettleMandateCharges,
} from '../../../gateway/http-pix-automatico.ts';
import { IDEMPOTENCY_HEADER, ROUTES } from '../../../gateway/http-protocol.ts';
import { answerProblems, BcbInvalid, BcbNotFound, bodyOf } from './server-bcb-problems.ts';
import {
  type GatewayMandate,
  type GatewayMandateCharge,
  type PaymentGateway,
  type PixAutomatico,
} from '../../../gateway/port.ts';
import type { SimulatorPixAutomatico } from './simulator-pix-gateway.ts';
import { SANDBOX_PAYER_BANK } from './simulator-pix-rows.ts';

/**
 * The simulated server's Pix Automático in the BCB's Pix API (bacen/pix-api openapi.yaml 2.9): its
 * paths, request bodies and answers (RecCompleta, SolicRecCompleta, CobRCompleta, journey 4's CobVGerada) and, once PUT
 * /webhookrec and /webhookcobr name a URL, its webhooks (`{ recs }`, `{ cobsr }`). The mapping is the
 * engine's (gateway/bcb-pix-automatico*.ts); test/gateway/simulator-bcb-wire.test.ts checks every
 * payload against the schemas written from the specification. Beside the BCB's, as every POST of this
 * server, a POST carries an Idempotency-Key; a PUT or PATCH is keyed by its path. The sandbox's payer
 * and bank (`/v1/_sandbox/…`) are not the BCB's: they answer in the protocol's snake_case.
 */

/** The simulator, which creates a mandate and a charge the ways the BCB's API does. */
type BcbPixGateway = PaymentGateway &
  PixAutomatico &
  Pick<
    SimulatorPixAutomatico,
    | 'createFirstCharge'
    | 'createBcbMandate'
    | 'sendMandateRequest'
    | 'createMandateChargeAs'
    | 'composeDueChargeQr'
    | 'bcbWebhooks'
    | 'now'
  >;

const speaksBcb = (gateway: PaymentGateway): gateway is BcbPixGateway =>
  offersPixAutomatico(gateway) && 'createBcbMandate' in gateway;

const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

/** A sandbox control's body (the protocol's, not the BCB's): a bad one is the protocol's 400. */
function sandboxBodyOf<S extends z.ZodType>(schema: S, request: FastifyRequest): z.infer<S> {
  const parsed = schema.safeParse(request.body ?? {});
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
  throw Object.assign(new Error(`Invalid request body: ${detail}`), { statusCode: 400 });
}

function keyOf(request: FastifyRequest): string {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
    const violacao = { razao: 'Idempotency-Key header is required on every POST (1-255 characters)' };
    throw new BcbInvalid(
      'Idempotency-Key ausente ou inválida.',
      [{ ...violacao, propriedade: IDEMPOTENCY_HEADER }],
      true,
    );
  }
  return key;
}

const rec = (mandate: GatewayMandate) => recFromMandate(mandate, SANDBOX_RECEIVER, SANDBOX_PAYER_BANK);
const cobr = (charge: GatewayMandateCharge) => cobrFromCharge(charge, SANDBOX_RECEIVER);

/** A location's id: increasing, and not reused after a restart (the simulator keeps no locations). */
let lastLocation = Date.now();

/** The BCB's API's paths (sandbox controls aside). */
export const BCB_PREFIX = '/v2/';

export function pixAutomaticoRoutes(app: FastifyInstance, gateway: PaymentGateway): void {
  if (!speaksBcb(gateway)) return;
  // A context of their own, so that their errors are the BCB's Problema.
  void app.register(async (bcb) => {
    answerProblems(bcb);
    bcbRoutes(bcb, gateway);
  });
}

function bcbRoutes(app: FastifyInstance, gateway: BcbPixGateway): void {
  app.post(ROUTES.createMandateLocation.path, async (_request, reply) => {
    const id = ++lastLocation;
    const criacao = new Date().toISOString();
    return reply.status(201).send({ id, location: `pix.sandbox.invalid/rec/${id}`, criacao });
  });
  app.put(ROUTES.createFirstCharge.path, async (request, reply) => {
    const txid = idOf(request);
    const cob = bodyOf(bcbCobSolicitada, request);
    const pix = await gateway.createFirstCharge(txid, pixInputOfCob(cob, txid), `bcb:cob:${txid}`);
    return reply.status(201).send(cobGeradaOf(pix, cob));
  });
  app.put(ROUTES.createDueCharge.path, async (request, reply) => {
    const txid = idOf(request);
    const cobv = bodyOf(bcbCobVSolicitada, request);
    const pix = await gateway.createFirstCharge(txid, pixInputOfCobV(cobv, txid, gateway.now()), `bcb:cobv:${txid}`);
    return reply.status(201).send(cobVGeradaOf(pix, cobv));
  });
  app.post(ROUTES.createMandate.path, async (request, reply) => {
    const { input, firstChargeTxid } = mandateInputOfRec(bodyOf(bcbRecSolicitada, request));
    const creation = firstChargeTxid ? { firstPaymentId: firstChargeTxid } : { requestLater: true };
    const mandate = await gateway.createBcbMandate(input, keyOf(request), creation);
    return reply.status(201).send(rec(mandate));
  });
  app.get(ROUTES.getMandate.path, async (request) => {
    // ?txid= asks for the composite QR code with that charge: a cobv's makes the rec a journey 4's.
    const { txid } = request.query as { txid?: string };
    if (txid) return rec(await gateway.composeDueChargeQr(idOf(request), txid));
    const mandate = await gateway.getMandate(idOf(request));
    if (!mandate) throw new BcbNotFound(`Recorrência ${idOf(request)} não encontrada.`);
    return rec(mandate);
  });
  app.patch(ROUTES.cancelMandate.path, async (request) => {
    bodyOf(bcbCancelamento, request);
    return rec(await gateway.cancelMandate(idOf(request), `bcb:cancel-rec:${idOf(request)}`));
  });
  app.post(ROUTES.sendMandateRequest.path, async (request, reply) => {
    const { idRec, calendario } = bodyOf(bcbSolicRecSolicitada, request);
    const mandate = await gateway.sendMandateRequest(idRec, calendario.dataExpiracaoSolicitacao, keyOf(request));
    return reply.status(201).send(solicRecFromMandate(mandate, SANDBOX_PAYER_BANK));
  });
  cobrRoutes(app, gateway);
  webhookRoutes(app, gateway);
}

function cobrRoutes(app: FastifyInstance, gateway: BcbPixGateway): void {
  app.put(ROUTES.createMandateCharge.path, async (request, reply) => {
    const txid = idOf(request);
    const input = chargeInputOfCobr(bodyOf(bcbCobRSolicitada, request), txid);
    return reply.status(201).send(cobr(await gateway.createMandateChargeAs(txid, input, `bcb:cobr:${txid}`)));
  });
  app.get(ROUTES.getMandateCharge.path, async (request) => {
    const charge = await gateway.getMandateCharge(idOf(request));
    if (!charge) throw new BcbNotFound(`Cobrança ${idOf(request)} não encontrada.`);
    return cobr(charge);
  });
  app.post(ROUTES.retryMandateCharge.path, async (request, reply) => {
    const { id, data } = request.params as { id: string; data: string };
    return reply.status(201).send(cobr(await gateway.retryMandateCharge(id, data, keyOf(request))));
  });
  app.patch(ROUTES.cancelMandateCharge.path, async (request) => {
    bodyOf(bcbCancelamento, request);
    return cobr(await gateway.cancelMandateCharge(idOf(request), `bcb:cancel-cobr:${idOf(request)}`));
  });
}

function webhookRoutes(app: FastifyInstance, gateway: BcbPixGateway): void {
  app.put(ROUTES.setMandateWebhook.path, async (request) => {
    gateway.bcbWebhooks.rec = bodyOf(bcbWebhookSolicitado, request).webhookUrl;
    return {};
  });
  app.put(ROUTES.setMandateChargeWebhook.path, async (request) => {
    gateway.bcbWebhooks.cobr = bodyOf(bcbWebhookSolicitado, request).webhookUrl;
    return {};
  });
}

/** The sandbox's payer and bank: only on a gateway that plays them (the simulator). */
export function pixAutomaticoSandboxRoutes(app: FastifyInstance, gateway: PaymentGateway): void {
  if (!offersSandboxPixAutomatico(gateway)) return;
  app.post(ROUTES.sandboxAuthorizeMandate.path, async (request) => {
    const { persona } = sandboxBodyOf(wireAuthorizeMandate, request);
    return mandateToWire(await gateway.authorizeMandate(idOf(request), persona));
  });
  app.post(ROUTES.sandboxRevokeMandate.path, async (request) =>
    mandateToWire(await gateway.revokeMandate(idOf(request))),
  );
  app.post(ROUTES.sandboxSetPayerMaximum.path, async (request) => {
    const { maximum } = sandboxBodyOf(wirePayerMaximum, request);
    return mandateToWire(await gateway.setPayerMaximum(idOf(request), maximum));
  });
  app.post(ROUTES.sandboxSettleMandateCharges.path, async (request) => {
    const { as_of: asOf, mandate_ids: mandateIds } = sandboxBodyOf(wireSettleMandateCharges, request);
    return { items: (await gateway.settleMandateCharges(asOf, mandateIds)).map(mandateChargeToWire) };
  });
}
