import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { cardTokenToWire } from '../../../gateway/http-cards.ts';
import {
  chargebackToWire,
  wireCardUpdate,
  wireDecideChargeback,
  wireOpenChargeback,
} from '../../../gateway/http-disputes.ts';
import { ROUTES, errorBody } from '../../../gateway/http-protocol.ts';
import { offersChargebacks } from '../../../gateway/capabilities.ts';
import { GatewayError, type PaymentGateway, type SandboxControls } from '../../../gateway/port.ts';

/**
 * The simulated server after the sale (decision 0079): `GET /v1/chargebacks/:id`, and the sandbox's
 * controls that open and decide a chargeback and replace a kept card. A body that does not parse is
 * refused as any gateway refusal (422).
 */

const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

function bodyOf<S extends z.ZodType>(schema: S, request: FastifyRequest): z.infer<S> {
  const parsed = schema.safeParse(request.body ?? {});
  if (!parsed.success) throw new GatewayError(`Invalid request body: ${parsed.error.issues[0]?.message}`, false);
  return parsed.data;
}

export function chargebackRoutes(app: FastifyInstance, gateway: PaymentGateway): void {
  app.get(ROUTES.getChargeback.path, async (request, reply) => {
    const chargeback = offersChargebacks(gateway) ? await gateway.getChargeback(idOf(request)) : null;
    if (!chargeback) return reply.status(404).send(errorBody(404, `No chargeback ${idOf(request)}`));
    return chargebackToWire(chargeback);
  });
}

export function afterSaleSandboxRoutes(app: FastifyInstance, sandbox: SandboxControls): void {
  app.post(ROUTES.sandboxOpenChargeback.path, async (request) => {
    const { amount } = bodyOf(wireOpenChargeback, request);
    return chargebackToWire(await sandbox.openChargeback(idOf(request), amount ?? null));
  });
  app.post(ROUTES.sandboxDecideChargeback.path, async (request) => {
    const { outcome } = bodyOf(wireDecideChargeback, request);
    return chargebackToWire(await sandbox.decideChargeback(idOf(request), outcome));
  });
  app.post(ROUTES.sandboxUpdateCard.path, async (request) => {
    const next = bodyOf(wireCardUpdate, request);
    const card = await sandbox.updateCard(idOf(request), {
      last4: next.last4,
      expirationMonth: next.expiration_month,
      expirationYear: next.expiration_year,
    });
    return cardTokenToWire(card);
  });
}
