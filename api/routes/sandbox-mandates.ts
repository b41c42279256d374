import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GatewayMandate } from '../../contracts/pix-automatico.ts';
import { insertEvents, type EventType } from '../../db/events.ts';
import { upsertMandate, type MandateRow } from '../../db/mandate/mandates.ts';
import { gatewayMandateIdsOf, ownMandate } from '../../db/mandate/reads.ts';
import { pendingCheckoutMandate } from '../../db/checkout/mandate-reads.ts';
import type { Orm } from '../../db/orm.ts';
import { offersSandboxPixAutomatico } from '../../gateway/capabilities.ts';
import { mandateChargeToWire, mandateToWire, wireMandate } from '../../gateway/http-pix-automatico.ts';
import { GatewayError, type PixAutomatico, type SandboxPixAutomatico } from '../../gateway/port.ts';
import { notFound, unprocessable } from '../../use-cases/errors.ts';
import { errorResponses, isUuid, validationErrors } from '../../use-cases/schemas/common.ts';
import { z } from 'zod';
import { mandateEventData } from '../../use-cases/schemas/mandates.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { mandateParams, mandateSchema } from '../schemas/mandates.ts';
import {
  authorizeMandateBody,
  payerMaximumBody,
  settledMandateCharges,
  settleMandateChargesBody,
} from '../schemas/sandbox-mandates.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

/**
 * The sandbox's Pix Automático payer and their bank (decision 0096): what the payer does in their bank's
 * app (answering a mandate as a persona, revoking it, setting a maximum) and the bank settling the
 * charges due by a day. Unlike the other sandbox routes these name our records, so they take the
 * organization's credential (subscriptions:write) and see only its mandates. In test deployments whose
 * gateway plays the payer (the simulator); elsewhere every route is a 404.
 *
 * The gateway's answer is written at once through the mandate's repository, with its `mandate.<status>`
 * event; the subscription's workflow learns of it from the gateway's callbacks, as after the sandbox's
 * pix payments (it reads the mandate back, and finds it written).
 */
const WRITE = { oat: ['subscriptions:write'], apiKey: 'subscriptions' } as const;
const tags = ['sandbox'];
type Sandbox = PixAutomatico & SandboxPixAutomatico;

const refusals = validationErrors({
  gateway_refused: "the simulated payer's bank refused the step; the detail says why, nothing changed",
});

/** The organization's mandate changed at the gateway by `step` (its id at the gateway), written and answered. */
type Change = (
  organizationId: string,
  id: string,
  step: (gateway: Sandbox, gatewayId: string) => Promise<GatewayMandate>,
) => Promise<ReturnType<typeof mandateEventData>>;

export const sandboxMandatesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const gateway =
    deps.config.DEPLOYMENT_ENV === 'test' && offersSandboxPixAutomatico(deps.gateway) ? deps.gateway : null;
  const sandbox = (): Sandbox => {
    if (!gateway) throw notFound('Route');
    return gateway;
  };
  const change: Change = async (organizationId, id, step) => {
    const rail = sandbox();
    const mandate = isUuid(id) ? await ownMandate(deps.orm.em.fork(), organizationId, id) : null;
    if (!mandate) throw notFound('Mandate');
    const seen = await refused(() => step(rail, mandate.gatewayMandateId));
    return mandateEventData(await recordSight(deps.orm, mandate, seen));
  };
  payerRoutes(app, change);
  checkoutPayerRoutes(app, deps, sandbox);
  bankRoutes(app, deps, sandbox);
};

/** What the payer does in their bank's app: answer the mandate, revoke it, set a maximum. */
function payerRoutes(app: RouteApp, change: Change): void {
  app.post(
    '/mandates/:id/authorize',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'The payer answers a Pix Automático mandate as a persona does (sandbox)',
        description:
          'The persona also decides how the payer’s bank settles the later charges. A mandate already answered ' +
          '(a checkout’s, approved when its QR code was paid) is returned as it is. Scope: subscriptions:write.',
        params: mandateParams,
        body: authorizeMandateBody,
        response: { 200: mandateSchema, ...errorResponses, 422: refusals },
      },
    },
    async (request) =>
      change(organizationCredential(request).organizationId, request.params.id, (gateway, gatewayId) =>
        gateway.authorizeMandate(gatewayId, request.body.persona),
      ),
  );

  app.post(
    '/mandates/:id/revoke',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'The payer revokes an approved Pix Automático mandate in their bank’s app (sandbox)',
        description:
          'Cancelled by the payer (SLDB), with its open charges; a cancelled one is returned as it is. ' +
          'Scope: subscriptions:write.',
        params: mandateParams,
        response: { 200: mandateSchema, ...errorResponses, 422: refusals },
      },
    },
    async (request) =>
      change(organizationCredential(request).organizationId, request.params.id, (gateway, gatewayId) =>
        gateway.revokeMandate(gatewayId),
      ),
  );

  app.post(
    '/mandates/:id/payer-maximum',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'The payer sets their maximum per charge of an approved mandate (sandbox)',
        description:
          'A charge above it is rejected by the payer’s bank (AM02) on its settlement day; it cannot be under ' +
          'the receiver’s minimum. Scope: subscriptions:write.',
        params: mandateParams,
        body: payerMaximumBody,
        response: { 200: mandateSchema, ...errorResponses, 422: refusals },
      },
    },
    async (request) =>
      change(organizationCredential(request).organizationId, request.params.id, (gateway, gatewayId) =>
        gateway.setPayerMaximum(gatewayId, request.body.maximum),
      ),
  );
}

const CHECKOUT_WRITE = { oat: ['checkouts:write'], apiKey: 'other' } as const;

const checkoutRefusals = validationErrors({
  gateway_refused: "the simulated payer's bank refused the step; the detail says why, nothing changed",
  no_pending_mandate: 'the checkout waits on no Pix Automático QR code (it is not confirmed with one, or it was paid)',
});

/**
 * A checkout's journey-3 mandate, before it is ours: its row is written only once the buyer's pix is paid
 * and the subscription adopts it, so the payer's answer to the QR code is asked by the checkout.
 */
function checkoutPayerRoutes(app: RouteApp, deps: RouteDeps, sandbox: () => Sandbox): void {
  app.post(
    '/checkouts/:id/mandate/authorize',
    {
      onRequest: app.authenticate(CHECKOUT_WRITE),
      schema: {
        tags,
        summary: 'The payer reads a checkout’s Pix Automático QR code in their bank’s app and answers it (sandbox)',
        description:
          'For a checkout confirmed with a Pix Automático pix (its gateway_payment_data.pix_automatico): the payer ' +
          'pays the first period and answers the mandate as the persona does, which also decides how their bank ' +
          'settles the later charges. The checkout then records its sale from the gateway’s notice, as after ' +
          '/sandbox/transactions/{id}/pay, and the subscription adopts the mandate. Answers the gateway’s mandate, ' +
          'in its own shape. Scope: checkouts:write.',
        params: z.object({ id: z.string().max(64) }),
        body: authorizeMandateBody,
        response: { 200: wireMandate, ...errorResponses, 422: checkoutRefusals },
      },
    },
    async (request) => {
      const rail = sandbox();
      const { organizationId } = organizationCredential(request);
      const { id } = request.params;
      const checkout = isUuid(id) ? await pendingCheckoutMandate(deps.orm.em.fork(), organizationId, id) : undefined;
      if (!checkout) throw notFound('Checkout');
      if (!checkout.mandateId) {
        throw unprocessable('no_pending_mandate', 'The checkout waits on no Pix Automático QR code');
      }
      const mandateId = checkout.mandateId;
      return mandateToWire(await refused(() => rail.authorizeMandate(mandateId, request.body.persona)));
    },
  );
}

/** The payer's bank settling the charges due by a day: the organization's only. */
function bankRoutes(app: RouteApp, deps: RouteDeps, sandbox: () => Sandbox): void {
  app.post(
    '/mandate-charges/settle',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'The payer’s bank settles the organization’s mandate charges due by a day (sandbox)',
        description:
          'Each attempt settling on or before as_of is paid, rejected or expired as its payer’s persona plays it; ' +
          'a charge no retry can mend any more ends. Only this organization’s mandates. Each subscription’s ' +
          'workflow records its charge from the gateway’s callbacks. Scope: subscriptions:write.',
        body: settleMandateChargesBody,
        response: { 200: settledMandateCharges, ...errorResponses, 422: refusals },
      },
    },
    async (request) => {
      const rail = sandbox();
      const { organizationId } = organizationCredential(request);
      const mandateIds = await gatewayMandateIdsOf(deps.orm.em.fork(), organizationId);
      const charges = await refused(() => rail.settleMandateCharges(request.body.as_of, mandateIds));
      return { items: charges.map(mandateChargeToWire) };
    },
  );
}

/** The gateway's definite refusal as a 422 with its words; an id it does not know as a 404. */
async function refused<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof GatewayError) || err.retryable) throw err;
    if (err.message.startsWith('Unknown mandate')) throw notFound('Mandate');
    throw unprocessable('gateway_refused', 'The simulated payer’s bank refused the step', err.message);
  }
}

/**
 * The gateway's sight of our mandate, written through its repository with `mandate.<status>` when its
 * status moved (a sight the subscription's workflow wrote first writes nothing more): the row written.
 */
async function recordSight(orm: Orm, mandate: MandateRow, seen: GatewayMandate): Promise<MandateRow> {
  return orm.em.fork().transactional(async (tx) => {
    const { organizationId, subscriptionId, customerId, currency } = mandate;
    const { row, previousStatus } = await upsertMandate(
      tx,
      { organizationId, subscriptionId, customerId, currency, gateway: seen },
      new Date(),
    );
    if (previousStatus !== row.status) {
      await insertEvents(tx, organizationId, [[`mandate.${row.status}` as EventType, mandateEventData(row)]]);
    }
    return row;
  });
}
