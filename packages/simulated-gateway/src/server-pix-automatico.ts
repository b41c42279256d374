import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { offersPixAutomatico, offersSandboxPixAutomatico } from '../../../gateway/capabilities.ts';
import {
  mandateChargeInputFromWire,
  mandateChargeToWire,
  mandateInputFromWire,
  mandateToWire,
  wireAuthorizeMandate,
  wireMandateChargeInput,
  wireMandateInput,
  wireMandateRetry,
  wirePayerMaximum,
  wireSettleMandateCharges,
} from '../../../gateway/http-pix-automatico.ts';
import { errorBody, IDEMPOTENCY_HEADER, ROUTES } from '../../../gateway/http-protocol.ts';
import type { PaymentGateway } from '../../../gateway/port.ts';

/**
 * The simulated server's Pix Automático (gateway/http-pix-automatico.ts): the port's mandates and
 * cycle charges, and the sandbox's payer and bank, for a gateway that has them. A body that does not
 * parse is a 400, as the server's other routes answer it.
 */

const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

function bodyOf<S extends z.ZodType>(schema: S, request: FastifyRequest): z.infer<S> {
  const parsed = schema.safeParse(request.body ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    throw Object.assign(new Error(`Invalid request body: ${detail}`), { statusCode: 400 });
  }
  return parsed.data;
}

function keyOf(request: FastifyRequest): string {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
    throw Object.assign(new Error('Idempotency-Key header is required on every POST (1-255 characters)'), {
      statusCode: 400,
    });
  }
  return key;
}

export function pixAutomaticoRoutes(app: FastifyInstance, gateway: PaymentGateway): void {
  if (!offersPixAutomatico(gateway)) return;
  app.post(ROUTES.createMandate.path, async (request, reply) => {
    const input = mandateInputFromWire(bodyOf(wireMandateInput, request));
    return reply.status(201).send(mandateToWire(await gateway.createMandate(input, keyOf(request))));
  });
  app.get(ROUTES.getMandate.path, async (request, reply) => {
    const mandate = await gateway.getMandate(idOf(request));
    if (!mandate) return reply.status(404).send(errorBody(404, `No mandate ${idOf(request)}`));
    return mandateToWire(mandate);
  });
  app.post(ROUTES.cancelMandate.path, async (request) =>
    mandateToWire(await gateway.cancelMandate(idOf(request), keyOf(request))),
  );
  app.post(ROUTES.createMandateCharge.path, async (request, reply) => {
    const input = mandateChargeInputFromWire(bodyOf(wireMandateChargeInput, request));
    return reply.status(201).send(mandateChargeToWire(await gateway.createMandateCharge(input, keyOf(request))));
  });
  app.get(ROUTES.getMandateCharge.path, async (request, reply) => {
    const charge = await gateway.getMandateCharge(idOf(request));
    if (!charge) return reply.status(404).send(errorBody(404, `No mandate charge ${idOf(request)}`));
    return mandateChargeToWire(charge);
  });
  app.post(ROUTES.retryMandateCharge.path, async (request) => {
    const { settlement_date: day } = bodyOf(wireMandateRetry, request);
    return mandateChargeToWire(await gateway.retryMandateCharge(idOf(request), day, keyOf(request)));
  });
  app.post(ROUTES.cancelMandateCharge.path, async (request) =>
    mandateChargeToWire(await gateway.cancelMandateCharge(idOf(request), keyOf(request))),
  );
}

/** The sandbox's payer and bank: only on a gateway that plays them (the simulator). */
export function pixAutomaticoSandboxRoutes(app: FastifyInstance, gateway: PaymentGateway): void {
  if (!offersSandboxPixAutomatico(gateway)) return;
  app.post(ROUTES.sandboxAuthorizeMandate.path, async (request) => {
    const { persona } = bodyOf(wireAuthorizeMandate, request);
    return mandateToWire(await gateway.authorizeMandate(idOf(request), persona));
  });
  app.post(ROUTES.sandboxRevokeMandate.path, async (request) =>
    mandateToWire(await gateway.revokeMandate(idOf(request))),
  );
  app.post(ROUTES.sandboxSetPayerMaximum.path, async (request) => {
    const { maximum } = bodyOf(wirePayerMaximum, request);
    return mandateToWire(await gateway.setPayerMaximum(idOf(request), maximum));
  });
  app.post(ROUTES.sandboxSettleMandateCharges.path, async (request) => {
    const { as_of: asOf, mandate_ids: mandateIds } = bodyOf(wireSettleMandateCharges, request);
    return { items: (await gateway.settleMandateCharges(asOf, mandateIds)).map(mandateChargeToWire) };
  });
}
