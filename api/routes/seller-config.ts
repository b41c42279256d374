import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { priceOrFail } from '../../db/catalog/products.ts';
import { maxInstallments } from '../../domain/checkout-pricing.ts';
import { checkoutByClientSecret } from '../checkout-public.ts';
import { clientSecretParams, sellerConfigSchema } from '../../use-cases/schemas/checkouts.ts';
import { errorResponses } from '../../use-cases/schemas/common.ts';
import type { RouteDeps } from '../route-deps.ts';
import { sellerIdOf } from '../seller-ids.ts';

const PAYMENT_METHODS = ['credit_card', 'pix', 'boleto'] as const;

/**
 * What a frontend needs to pay a checkout through `POST /transactions/direct` (the spec's "seller_id
 * obtained earlier from the seller-config endpoint"): public, the client_secret is the credential.
 * Registered under /api/v1/checkouts.
 */
export const sellerConfigRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/client/:client_secret/seller-config',
    {
      schema: {
        tags: ['checkouts (public)'],
        summary: 'Seller configuration for paying a checkout (public: the client_secret is the credential)',
        params: clientSecretParams,
        response: { 200: sellerConfigSchema, ...errorResponses },
      },
    },
    async (request) => {
      const em = deps.orm.em.fork();
      const checkout = await checkoutByClientSecret(em, request.params.client_secret);
      const price = await priceOrFail(em, checkout.productPriceId);
      return {
        seller_id: sellerIdOf(checkout.organizationId),
        checkout_id: checkout.id,
        currency: checkout.currency,
        amount: Number(checkout.amount),
        max_installments: maxInstallments(price),
        no_fees_installments: checkout.noFeesInstallments,
        payment_methods: [...PAYMENT_METHODS],
      };
    },
  );
};
