import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, notFound } from '../../use-cases/errors.ts';
import { tokenizationError } from '../card-tokenization.ts';
import { errorBody, errorResponses, nonBlank } from '../../use-cases/schemas/common.ts';
import { SANDBOX_PUBLIC_KEY, servesSandboxTokenizer } from '../browser-card-tokenizer.ts';
import type { RouteDeps } from '../route-deps.ts';
import { testCardBin, testCardPlans } from '../../gateway/test-card-bins.ts';
import { cardPaymentsOf } from '../../gateway/capabilities.ts';
import { centsToReais } from '../../gateway/mercadopago-money.ts';

/**
 * The simulated gateway's browser tokenization, in Mercado Pago's shape (`POST /v1/card_tokens` with
 * the seller's public key), for pages/assets/sandbox-gateway.js: the hosted checkout runs one
 * code path against it and against MercadoPago.js. Its token is a simulator card token, which
 * confirm-sdk's `card_token` takes. Public (the browser calls it) and counted per client address.
 */

const digits = (label: string, pattern: RegExp) => z.string().regex(pattern, `${label} is not valid`);

const cardTokenBody = z.strictObject({
  card_number: digits('card_number', /^\d{12,19}$/),
  expiration_month: z.number().int().min(1).max(12),
  expiration_year: z.number().int().min(2000).max(2099).meta({ description: 'Four digits' }),
  security_code: digits('security_code', /^\d{3,4}$/),
  cardholder: z.strictObject({
    name: nonBlank(255),
    identification: z
      .strictObject({ type: z.string().max(20), number: z.string().max(32) })
      .partial()
      .optional()
      .meta({ description: "Mercado Pago's CPF or CNPJ of the holder: taken and ignored by the sandbox" }),
  }),
});

const cardTokenResponse = z.object({
  id: z.string().meta({ description: "The token: confirm-sdk's card_token.token" }),
  first_six_digits: z.string(),
  last_four_digits: z.string(),
  expiration_month: z.number().int(),
  expiration_year: z.number().int(),
  cardholder: z.object({ name: z.string() }),
  status: z.literal('active'),
});

const publicKeyQuery = z
  .string()
  .min(1)
  .max(200)
  .meta({ description: `The sandbox's: ${SANDBOX_PUBLIC_KEY}` });
const binQuery = z.string().regex(/^\d{6,8}$/, 'bin is 6 to 8 digits');

const paymentMethodOfBin = z.object({
  id: z.string().meta({ description: "Mercado Pago's payment_method_id: what the page posts as payment_method_id" }),
  payment_type_id: z.enum(['credit_card', 'debit_card']),
  issuer: z.object({ id: z.number().int(), name: z.string() }),
});

const installmentsOfBin = z.object({
  payment_method_id: z.string(),
  payment_type_id: z.enum(['credit_card', 'debit_card']),
  issuer: z.object({ id: z.number().int(), name: z.string() }),
  payer_costs: z.array(
    z.object({
      installments: z.number().int(),
      installment_rate: z.number().meta({ description: 'Interest over the amount, in percent (0: interest-free)' }),
      installment_amount: z.number().meta({ description: 'Each instalment, in reais (as Mercado Pago answers)' }),
      total_amount: z.number().meta({ description: 'What the buyer pays in all, in reais' }),
    }),
  ),
});

/** The sandbox's endpoints are served only where its tokenizer is, and answer only its public key. */
function sandboxOnly(deps: RouteDeps, publicKey: string) {
  if (!servesSandboxTokenizer(deps.config)) throw notFound('Route');
  if (publicKey !== SANDBOX_PUBLIC_KEY) {
    throw new ApiError(401, 'invalid_public_key', 'Unknown public_key', `The sandbox's is ${SANDBOX_PUBLIC_KEY}`);
  }
}

export const sandboxGatewayRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  cardLookupRoutes(app, deps);
  cardTokenRoute(app, deps);
};

type RouteApp = Parameters<FastifyPluginAsyncZod<RouteDeps>>[0];

/** MercadoPago.js' BIN look-ups, answered from the simulator's test cards (gateway/test-card-bins.ts). */
function cardLookupRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/payment_methods/search',
    {
      schema: {
        tags: ['sandbox'],
        summary: "A test card's payment method and issuer by its BIN (sandbox; MercadoPago.js getPaymentMethods)",
        description:
          'Served with the simulated gateway where card data is accepted; a 404 elsewhere. The hosted checkout ' +
          'calls it through sandbox-gateway.js as the buyer types the card number.',
        querystring: z.object({ public_key: publicKeyQuery, bins: binQuery }),
        response: {
          200: z.object({ results: z.array(paymentMethodOfBin) }),
          400: errorResponses[400],
          401: errorBody.meta({ description: "public_key is not the sandbox's" }),
          404: errorResponses[404],
          429: errorResponses[429],
        },
      },
    },
    async (request) => {
      sandboxOnly(deps, request.query.public_key);
      const card = testCardBin(request.query.bins);
      return {
        results: card ? [{ id: card.paymentMethodId, payment_type_id: card.paymentTypeId, issuer: card.issuer }] : [],
      };
    },
  );

  app.get(
    '/payment_methods/installments',
    {
      schema: {
        tags: ['sandbox'],
        summary: "A test card issuer's instalment plans (sandbox; MercadoPago.js getInstallments)",
        description:
          "Each number of instalments the test card's issuer offers for the amount, with its interest (the " +
          "simulator's rate); a debit card has one. Served only with the simulated gateway where card data is accepted.",
        querystring: z.object({
          public_key: publicKeyQuery,
          bin: binQuery,
          amount: z.coerce
            .number()
            .positive()
            .max(100_000_000)
            .meta({ description: 'In reais, as Mercado Pago takes it' }),
          payment_type_id: z.enum(['credit_card', 'debit_card']).optional(),
        }),
        response: {
          200: z.array(installmentsOfBin),
          400: errorResponses[400],
          401: errorBody.meta({ description: "public_key is not the sandbox's" }),
          404: errorResponses[404],
          429: errorResponses[429],
        },
      },
    },
    async (request) => {
      sandboxOnly(deps, request.query.public_key);
      const card = testCardBin(request.query.bin);
      const wanted = request.query.payment_type_id;
      if (!card || (wanted && wanted !== card.paymentTypeId)) return [];
      const amount = Math.round(request.query.amount * 100);
      return [
        {
          payment_method_id: card.paymentMethodId,
          payment_type_id: card.paymentTypeId,
          issuer: card.issuer,
          payer_costs: testCardPlans(card, amount).map((plan) => ({
            installments: plan.installments,
            installment_rate: Math.round((plan.total / amount - 1) * 10_000) / 100,
            installment_amount: centsToReais(plan.installmentAmount),
            total_amount: centsToReais(plan.total),
          })),
        },
      ];
    },
  );
}

/** Mercado Pago's `POST /v1/card_tokens`, on the simulator. */
function cardTokenRoute(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/card_tokens',
    {
      schema: {
        tags: ['sandbox'],
        summary: "Tokenize a test card in the buyer's browser (sandbox; Mercado Pago's card_tokens shape)",
        description:
          'Served with the simulated gateway (GATEWAY simulator or http) where card data is accepted; a 404 ' +
          'elsewhere. The hosted checkout calls it through /assets/…/sandbox-gateway.js, which offers ' +
          "MercadoPago.js' `new MercadoPago(public_key).createCardToken(…)`.",
        querystring: z.object({
          public_key: z
            .string()
            .min(1)
            .max(200)
            .meta({ description: `The sandbox's: ${SANDBOX_PUBLIC_KEY}` }),
        }),
        body: cardTokenBody,
        response: {
          201: cardTokenResponse,
          400: errorResponses[400],
          401: errorBody.meta({ description: "public_key is not the sandbox's" }),
          404: errorResponses[404],
          422: errorBody.meta({ description: '`invalid_card`: the simulated gateway refused the card' }),
          429: errorResponses[429],
          503: errorBody.meta({ description: 'The simulated gateway is unavailable; retry' }),
        },
      },
    },
    async (request, reply) => {
      sandboxOnly(deps, request.query.public_key);
      const body = request.body;
      const card = {
        number: body.card_number,
        holderName: body.cardholder.name,
        expirationMonth: String(body.expiration_month).padStart(2, '0'),
        expirationYear: String(body.expiration_year),
        cvv: body.security_code,
      };
      try {
        // A fresh key: each call makes a new token, as a browser's each press does.
        const token = await cardPaymentsOf(deps.gateway).tokenizeCard(card, `sandbox-card-token:${randomUUID()}`);
        return reply.status(201).send({
          id: token.id,
          first_six_digits: body.card_number.slice(0, 6),
          last_four_digits: token.last4,
          expiration_month: body.expiration_month,
          expiration_year: body.expiration_year,
          cardholder: { name: token.holderName },
          status: 'active' as const,
        });
      } catch (err) {
        throw tokenizationError(err);
      }
    },
  );
}
