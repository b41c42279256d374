import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { cardTokenToWire, wireCardToken } from '../../gateway/http-cards.ts';
import {
  chargebackToWire,
  wireCardUpdate,
  wireChargeback,
  wireDecideChargeback,
  wireOpenChargeback,
} from '../../gateway/http-disputes.ts';
import { invoiceToWire, wireInvoice } from '../../gateway/http-recurrence.ts';
import { transactionToWire, wireTransaction } from '../../gateway/http-transactions.ts';
import { offersSandboxControls } from '../../gateway/capabilities.ts';
import { GatewayError, type SandboxControls } from '../../gateway/port.ts';
import { TEST_CARDS } from '../../gateway/test-cards.ts';
import { conflict, notFound } from '../../use-cases/errors.ts';
import { errorResponses } from '../../use-cases/schemas/common.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

/** The sandbox answers with the gateway's own wire shapes (gateway/http-transactions.ts, http-recurrence.ts). */
const testCardSchema = z.object({
  number: z.string(),
  brand: z.string(),
  outcome: z.string(),
  description: z.string(),
});

/**
 * Sandbox control of the simulated gateway: what a buyer does outside our API (paying a pix or a
 * boleto, letting it lapse, the gateway charging an invoice). Public, in test deployments only: it is
 * for tests and demos, and the gateway ids it takes are unguessable. Elsewhere every route is a 404.
 */
export const sandboxRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const gateway = deps.config.DEPLOYMENT_ENV === 'test' && offersSandboxControls(deps.gateway) ? deps.gateway : null;
  const simulator = () => {
    if (!gateway) throw notFound('Route');
    return gateway;
  };

  transactionRoutes(app, simulator);
  recurrenceRoutes(app, simulator);
  afterSaleRoutes(app, simulator);
};

/** The test cards, paying or expiring a pending pix or boleto, and ending a card's review. */
function transactionRoutes(app: RouteApp, simulator: () => SandboxControls): void {
  app.get(
    '/test-cards',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'List the simulated gateway’s deterministic test cards',
        response: { 200: z.object({ items: z.array(testCardSchema) }), ...errorResponses },
      },
    },
    async () => {
      simulator();
      return { items: TEST_CARDS.map((c) => ({ ...c })) };
    },
  );

  const transactionParams = z.object({ transaction_id: z.string().min(1).max(100) });

  app.post(
    '/transactions/:transaction_id/pay',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Pay a pending pix or boleto (sandbox)',
        description:
          'A cancelled one is paid too until it would have lapsed: a bank that took the payment before the cancellation reached it.',
        params: transactionParams,
        response: { 200: wireTransaction, ...errorResponses },
      },
    },
    async (request) => transactionToWire(await control(() => simulator().pay(request.params.transaction_id))),
  );

  app.post(
    '/transactions/:transaction_id/expire',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Expire a pending pix, or make a pending boleto overdue (sandbox)',
        params: transactionParams,
        response: { 200: wireTransaction, ...errorResponses },
      },
    },
    async (request) => transactionToWire(await control(() => simulator().expire(request.params.transaction_id))),
  );

  app.post(
    '/transactions/:transaction_id/end-review',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'End the review of a card payment held for it (sandbox)',
        description:
          'A test card held for review (pending) is approved or declined, as the card says. One cancelled a moment ' +
          'before is approved too when its card says so: an approval that crossed the cancellation.',
        params: transactionParams,
        response: { 200: wireTransaction, ...errorResponses },
      },
    },
    async (request) => transactionToWire(await control(() => simulator().endReview(request.params.transaction_id))),
  );
}

/** The gateway's recurrence: paying or refusing an invoice, billing a subscription's next cycle. */
function recurrenceRoutes(app: RouteApp, simulator: () => SandboxControls): void {
  app.post(
    '/invoices/:invoice_id/pay',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Charge a pending gateway invoice to its subscription’s card (sandbox)',
        params: z.object({ invoice_id: z.string().min(1).max(100) }),
        response: { 200: wireInvoice, ...errorResponses },
      },
    },
    async (request) => invoiceToWire(await control(() => simulator().payInvoice(request.params.invoice_id))),
  );

  app.post(
    '/invoices/:invoice_id/fail',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Refuse the charge of a pending gateway invoice (card_declined) (sandbox)',
        params: z.object({ invoice_id: z.string().min(1).max(100) }),
        response: { 200: wireInvoice, ...errorResponses },
      },
    },
    async (request) => invoiceToWire(await control(() => simulator().failInvoice(request.params.invoice_id))),
  );

  app.post(
    '/subscriptions/:gateway_subscription_id/bill',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Run the gateway’s recurrence for a subscription now: its next cycle, or another try (sandbox)',
        description:
          'The gateway charges its earliest unpaid cycle (or the next one) to the subscription’s card and ' +
          'notifies the API, as it does on each due date; the subscription’s workflow records the period.',
        params: z.object({ gateway_subscription_id: z.string().min(1).max(100) }),
        response: { 200: wireInvoice, ...errorResponses },
      },
    },
    async (request) =>
      invoiceToWire(await control(() => simulator().billSubscription(request.params.gateway_subscription_id))),
  );
}

/**
 * After the sale (decision 0079): a chargeback opened and decided, a kept card replaced by the card
 * updater; each is posted to the API as the gateway's signed callback, and recorded from there.
 */
function afterSaleRoutes(app: RouteApp, simulator: () => SandboxControls): void {
  app.post(
    '/transactions/:transaction_id/chargebacks',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Open a chargeback of a card payment: all that is left of it, or `amount` cents (sandbox)',
        params: z.object({ transaction_id: z.string().min(1).max(100) }),
        body: wireOpenChargeback,
        response: { 200: wireChargeback, ...errorResponses },
      },
    },
    async (request) =>
      chargebackToWire(
        await control(() => simulator().openChargeback(request.params.transaction_id, request.body.amount ?? null)),
      ),
  );

  app.post(
    '/chargebacks/:chargeback_id/decide',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Decide an open chargeback, won or lost (sandbox)',
        params: z.object({ chargeback_id: z.string().min(1).max(100) }),
        body: wireDecideChargeback,
        response: { 200: wireChargeback, ...errorResponses },
      },
    },
    async (request) =>
      chargebackToWire(
        await control(() => simulator().decideChargeback(request.params.chargeback_id, request.body.outcome)),
      ),
  );

  app.post(
    '/cards/:card_token_id/update',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Replace a kept card with a new one, as an issuer’s card updater does (sandbox)',
        params: z.object({ card_token_id: z.string().min(1).max(100) }),
        body: wireCardUpdate,
        response: { 200: wireCardToken, ...errorResponses },
      },
    },
    async (request) => {
      const { last4, expiration_month: expirationMonth, expiration_year: expirationYear } = request.body;
      const next = { last4, expirationMonth, expirationYear };
      return cardTokenToWire(await control(() => simulator().updateCard(request.params.card_token_id, next)));
    },
  );
}

/** The simulator's refusals: an unknown id is a 404, a state that does not allow the step a 409. */
async function control<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof GatewayError && !err.retryable) {
      if (err.message.startsWith('Unknown transaction')) throw notFound('Transaction');
      if (err.message.startsWith('Unknown invoice')) throw notFound('Invoice');
      if (err.message.startsWith('Unknown subscription')) throw notFound('Subscription');
      if (err.message.startsWith('Unknown chargeback')) throw notFound('Chargeback');
      if (err.message.startsWith('Unknown card token')) throw notFound('Card');
      throw conflict(err.message);
    }
    throw err;
  }
}
