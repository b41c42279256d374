import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError, type GatewayInvoice, type GatewayTransaction } from '../../gateway/port.ts';
import { SimulatedGateway } from '../../gateway/simulator.ts';
import { TEST_CARDS } from '../../gateway/test-cards.ts';
import type { RouteDeps } from '../app.ts';
import { conflict, notFound } from '../errors.ts';
import { errorResponses } from '../schemas/common.ts';

const transactionSchema = z.object({
  id: z.string(),
  reference: z.string(),
  status: z.string(),
  payment_type: z.enum(['credit', 'pix', 'boleto']),
  amount: z.number().int(),
  base_amount: z.number().int(),
  currency: z.string(),
  installments: z.number().int(),
  installment_amounts: z.array(z.number().int()),
  authorization_code: z.string().nullable(),
  decline_reason: z.string().nullable(),
  card: z
    .object({
      id: z.string(),
      brand: z.string(),
      first4: z.string(),
      last4: z.string(),
      holder_name: z.string(),
      expiration_month: z.string(),
      expiration_year: z.string(),
    })
    .nullable(),
  pix: z.object({ qr_code: z.string(), qr_code_image: z.string(), expires_at: z.string() }).nullable(),
  boleto: z
    .object({ barcode: z.string(), digitable_line: z.string(), due_date: z.string(), url: z.string() })
    .nullable(),
  buyer_id: z.string().nullable(),
  transaction_number: z.string(),
  captured_amount: z.number().int(),
  refunded_amount: z.number().int(),
  created_at: z.string(),
  confirmed_at: z.string().nullable(),
});

const invoiceSchema = z.object({
  id: z.string(),
  subscription_id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.string(),
  due_date: z.string(),
  expiration_date: z.string().nullable(),
  paid_at: z.string().nullable(),
  created_at: z.string(),
});

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
  const gateway =
    deps.config.DEPLOYMENT_ENV === 'test' && deps.gateway instanceof SimulatedGateway ? deps.gateway : null;
  const simulator = () => {
    if (!gateway) throw notFound('Route');
    return gateway;
  };

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
        params: transactionParams,
        response: { 200: transactionSchema, ...errorResponses },
      },
    },
    async (request) => transactionBody(await control(() => simulator().pay(request.params.transaction_id))),
  );

  app.post(
    '/transactions/:transaction_id/expire',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Expire a pending pix, or make a pending boleto overdue (sandbox)',
        params: transactionParams,
        response: { 200: transactionSchema, ...errorResponses },
      },
    },
    async (request) => transactionBody(await control(() => simulator().expire(request.params.transaction_id))),
  );

  app.post(
    '/invoices/:invoice_id/pay',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Charge a pending gateway invoice to its subscription’s card (sandbox)',
        params: z.object({ invoice_id: z.string().min(1).max(100) }),
        response: { 200: invoiceSchema, ...errorResponses },
      },
    },
    async (request) => invoiceBody(await control(() => simulator().payInvoice(request.params.invoice_id))),
  );
};

/** The simulator's refusals: an unknown id is a 404, a state that does not allow the step a 409. */
async function control<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof GatewayError && !err.retryable) {
      if (err.message.startsWith('Unknown transaction')) throw notFound('Transaction');
      if (err.message.startsWith('Unknown invoice')) throw notFound('Invoice');
      throw conflict(err.message);
    }
    throw err;
  }
}

export function transactionBody(t: GatewayTransaction): z.infer<typeof transactionSchema> {
  return {
    id: t.id,
    reference: t.reference,
    status: t.status,
    payment_type: t.paymentType,
    amount: t.amount,
    base_amount: t.baseAmount,
    currency: t.currency,
    installments: t.installments,
    installment_amounts: t.installmentAmounts,
    authorization_code: t.authorizationCode,
    decline_reason: t.declineReason,
    card: t.card && {
      id: t.card.id,
      brand: t.card.brand,
      first4: t.card.first4,
      last4: t.card.last4,
      holder_name: t.card.holderName,
      expiration_month: t.card.expirationMonth,
      expiration_year: t.card.expirationYear,
    },
    pix: t.pix && { qr_code: t.pix.qrCode, qr_code_image: t.pix.qrCodeImage, expires_at: t.pix.expiresAt },
    boleto: t.boleto && {
      barcode: t.boleto.barcode,
      digitable_line: t.boleto.digitableLine,
      due_date: t.boleto.dueDate,
      url: t.boleto.url,
    },
    buyer_id: t.buyerId,
    transaction_number: t.transactionNumber,
    captured_amount: t.capturedAmount,
    refunded_amount: t.refundedAmount,
    created_at: t.createdAt,
    confirmed_at: t.confirmedAt,
  };
}

function invoiceBody(i: GatewayInvoice): z.infer<typeof invoiceSchema> {
  return {
    id: i.id,
    subscription_id: i.subscriptionId,
    amount: i.amount,
    currency: i.currency,
    status: i.status,
    due_date: i.dueDate,
    expiration_date: i.expirationDate,
    paid_at: i.paidAt,
    created_at: i.createdAt,
  };
}
