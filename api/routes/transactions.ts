import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Checkout, Product, Transaction } from '../../db/entities/index.ts';
import type { RouteDeps } from '../app.ts';
import { notFound } from '../errors.ts';
import { errorResponses, iso } from '../schemas/common.ts';
import {
  buyerNames,
  cardOf,
  transactionParams,
  transactionSchema,
  type TransactionBody,
} from '../schemas/transactions.ts';

const tags = ['transactions'];

/** Transactions read by their gateway identifier (public, as the spec says: the id is the credential). */
export const transactionsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/:transaction_id',
    {
      schema: {
        tags,
        summary: 'Get a processed transaction by its gateway identifier',
        description:
          'Public. When we hold no record of the transaction, it is read from the gateway and the answer carries ' +
          '`synced_from_gateway: true`.',
        params: transactionParams,
        response: { 200: transactionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const gatewayId = request.params.transaction_id;
      const em = deps.orm.em.fork();
      const local = await em.findOne(Transaction, { gatewayTransactionId: gatewayId });
      if (local) {
        const checkout = local.checkoutId ? await em.findOne(Checkout, { id: local.checkoutId }) : null;
        const product = checkout ? await em.findOne(Product, { id: checkout.productId }) : null;
        const buyer = local.buyer as { name?: string | null; email?: string | null } | null;
        const body: TransactionBody = {
          id: local.id,
          transaction_id: local.gatewayTransactionId,
          status: local.status,
          amount: local.amount,
          currency: local.currency.toUpperCase(),
          payment_type: local.paymentType,
          installments: local.installments,
          confirmed_at: iso(local.confirmedAt),
          created_at: iso(local.createdAt)!,
          card: cardOf(local.card ?? null),
          transaction_number: String(local.transactionNumber),
          authorization_code: local.authorizationCode ?? null,
          checkout:
            checkout && product
              ? {
                  id: checkout.id,
                  status: checkout.status,
                  amount: checkout.amount,
                  currency: checkout.currency.toUpperCase(),
                  customer_email: checkout.customerEmail ?? null,
                  customer_name: checkout.customerName ?? null,
                  success_url: checkout.successUrl ?? null,
                  product: { id: product.id, name: product.name, description: product.description ?? null },
                }
              : null,
          buyer: buyer
            ? { ...buyerNames(buyer.name), email: buyer.email ?? null }
            : checkout
              ? { ...buyerNames(checkout.customerName), email: checkout.customerEmail ?? null }
              : null,
          decline_reason: local.declineReason ?? null,
        };
        return body;
      }
      const remote = await deps.gateway.getTransaction(gatewayId);
      if (!remote) throw notFound('Transaction');
      return {
        id: null,
        transaction_id: remote.id,
        status: remote.status,
        amount: remote.amount,
        currency: remote.currency.toUpperCase(),
        payment_type: remote.paymentType,
        installments: remote.installments,
        confirmed_at: remote.confirmedAt,
        created_at: remote.createdAt,
        card: cardOf(remote.card),
        transaction_number: remote.transactionNumber,
        authorization_code: remote.authorizationCode,
        checkout: null,
        buyer: null,
        decline_reason: remote.declineReason,
        synced_from_gateway: true,
      } satisfies TransactionBody;
    },
  );
};
