import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { checkoutProduct } from '../../db/catalog/transaction-reads.ts';
import { transactionByGatewayId, type TransactionRow } from '../../db/checkout/public-reads.ts';
import { findCheckoutRow } from '../../db/checkout/records.ts';
import { findOrganization } from '../../db/organization/organizations.ts';
import { offersCardPayments } from '../../gateway/capabilities.ts';
import type { GatewayTransaction } from '../../gateway/port.ts';
import { ApiError, badRequest, notFound, unprocessable } from '../../use-cases/errors.ts';
import { chargeableCard, sentCard } from '../card-tokenization.ts';
import { confirmableCheckoutOf, confirmCheckout } from '../checkout-confirmation.ts';
import { errorResponses, isUuid, iso, validationErrors } from '../../use-cases/schemas/common.ts';
import { CONFIRMATION_REFUSAL_CODES } from '../../domain/checkout-confirmation.ts';
import {
  buyerNames,
  cardOf,
  directTransactionBody,
  directTransactionResponse,
  transactionParams,
  transactionSchema,
  maskedTransaction,
  type DirectTransactionBody,
  type TransactionBody,
} from '../schemas/transactions.ts';
import { ORGANIZATION_ID } from '../../domain/search-attributes.ts';
import {
  directTransactionWorkflowId,
  GATEWAY_UNAVAILABLE,
  type DirectTransactionInput,
  type DirectTransactionResult,
} from '../../contracts/direct-transaction.ts';
import type { DirectTransactionWorkflow } from '../../contracts/direct-transaction.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';
import { organizationOfSeller } from '../seller-ids.ts';

const tags = ['transactions'];

/** Transactions: created from the buyer's browser, and read by their gateway identifier (both public, as the spec says). */
export const transactionsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  directTransactionRoutes(app, deps);
  readRoutes(app, deps);
};

/** The 422s of a direct payment: its seller, and what a confirmed checkout still lacks of the buyer. */
const DIRECT_ERRORS = validationErrors({
  unknown_seller: 'seller_id is no seller of the seller-config endpoint',
  ...CONFIRMATION_REFUSAL_CODES,
});

/** POST /direct: a payment from the buyer's browser, confirming a checkout or a standalone charge. */
function directTransactionRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/direct',
    {
      schema: {
        tags,
        summary: "Create a payment transaction from the buyer's browser (public)",
        description:
          'The seller_id comes from the seller-config endpoint. With a checkout_id the payment confirms that ' +
          'checkout (its workflow charges once, however often this is sent); without one it is a standalone charge, ' +
          'made safe to retry by the Idempotency-Key header. A monthly recurring price accepts only 1 installment. ' +
          'Card data goes to the gateway and is never stored.',
        body: directTransactionBody,
        response: { 201: directTransactionResponse, ...errorResponses, 422: DIRECT_ERRORS },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const organizationId = organizationOfSeller(body.seller_id);
      const em = deps.orm.em.fork();
      if (!organizationId || !(await findOrganization(em, organizationId))) {
        throw unprocessable('unknown_seller', 'Unknown seller_id', 'Use the seller_id of the seller-config endpoint');
      }
      const hasCard = Boolean(body.card || body.card_token);
      if (body.payment_type === 'credit' && !hasCard)
        throw badRequest('card or card_token is required when payment_type is credit');
      if (body.payment_type === 'pix' && hasCard)
        throw badRequest('card and card_token are only accepted when payment_type is credit');
      if (body.payment_type === 'pix' && body.installments > 1) {
        throw badRequest('Installments apply to credit only', 'A pix payment is made in one installment');
      }
      const key = request.headers['idempotency-key'];
      const payment = body.checkout_id
        ? await payCheckout(deps, organizationId, body)
        : await chargeStandalone(deps, organizationId, body, typeof key === 'string' ? key : uuidv7());
      return reply.status(201).send({
        transaction_id: payment.id,
        status: payment.status as 'succeeded',
        authorization_code: payment.authorizationCode,
        amount: payment.amount,
        installments: payment.installments,
        ...(payment.declineReason ? { decline_reason: payment.declineReason } : {}),
        payment_method: {
          type: payment.paymentType === 'pix' ? 'pix' : 'credit',
          brand: payment.card?.brand ?? null,
          last4: payment.card?.last4 ?? null,
        },
        ...(payment.pix
          ? {
              pix: {
                qr_code: payment.pix.qrCode,
                qr_code_image: payment.pix.qrCodeImage,
                expires_at: payment.pix.expiresAt,
                ...(payment.pix.url ? { url: payment.pix.url } : {}),
              },
            }
          : {}),
      });
    },
  );
}

/** Who may see a transaction's personal data: its organization, by the spec's read credentials. */
const TRANSACTIONS_READ = { oat: ['transactions:read'], apiKey: 'transactions' } as const;

/** GET /:transaction_id: our record of a transaction, else the gateway's. */
function readRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/:transaction_id',
    {
      schema: {
        tags,
        summary: 'Get a processed transaction by its gateway identifier',
        description:
          'Public. When we hold no record of the transaction, it is read from the gateway and the answer carries ' +
          "`synced_from_gateway: true`. Without a credential of the transaction's organization (an access token " +
          'with transactions:read, or an API key with read) the personal fields are masked (`j***@example.com`, ' +
          '`A*** S***`: e-mails, names, the card holder). It is rate-limited per client address, whatever ' +
          'credential is sent.',
        params: transactionParams,
        response: { 200: transactionSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const gatewayId = request.params.transaction_id;
      const em = deps.orm.em.fork();
      const local = await transactionByGatewayId(em, gatewayId);
      if (local) {
        const body = await recordedTransaction(em, local);
        const viewer = await viewerOrganization(app, request, reply);
        return viewer === local.organizationId ? body : maskedTransaction(body);
      }
      const remote = await deps.gateway.getTransaction(gatewayId);
      if (!remote) throw notFound('Transaction');
      // Whose it is we do not know: nobody is shown its personal data.
      return maskedTransaction(gatewayTransaction(remote));
    },
  );
}

/**
 * The organization of the credential sent, if it may read transactions; else null. The read stays
 * public: a missing, invalid or insufficient credential only means the masked answer.
 */
async function viewerOrganization(app: RouteApp, request: FastifyRequest, reply: FastifyReply): Promise<string | null> {
  if (request.headers.authorization === undefined && request.headers['x-service-api-key'] === undefined) return null;
  try {
    await app.authenticate(TRANSACTIONS_READ).call(app, request, reply, () => undefined);
    return request.credential && request.credential.kind !== 'user' ? request.credential.organizationId : null;
  } catch {
    return null;
  }
}

/** Our record of a transaction, with its checkout and product when it paid one. */
async function recordedTransaction(em: EntityManager, local: TransactionRow): Promise<TransactionBody> {
  const checkout = local.checkoutId ? await findCheckoutRow(em, local.checkoutId) : null;
  const product = checkout ? await checkoutProduct(em, checkout.productId) : null;
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
            product: { id: product.id, name: product.name, description: product.description },
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

/** The gateway's transaction, when we hold no record of it. */
function gatewayTransaction(remote: GatewayTransaction): TransactionBody {
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
}

/** Pays a checkout through its workflow (the same path as confirm-sdk), then reads the payment back. */
async function payCheckout(deps: RouteDeps, organizationId: string, body: DirectTransactionBody) {
  if (!isUuid(body.checkout_id!)) throw notFound('Checkout');
  const checkout = await confirmableCheckoutOf(deps.orm.em.fork(), { id: body.checkout_id!, organizationId });
  if (body.amount !== checkout.amount) {
    throw badRequest('amount does not match the checkout', `The checkout's amount is ${checkout.amount} cents`);
  }
  const card = body.card;
  const result = await confirmCheckout(deps, checkout, {
    payment_method: body.payment_type === 'pix' ? 'pix' : 'credit_card',
    customer_email: body.customer_email,
    customer_tax_id: body.customer_tax_id,
    discount_code: body.discount_code,
    card: card
      ? {
          number: card.card_number,
          holder_name: card.holder_name,
          expiration_month: card.expiration_month,
          expiration_year: card.expiration_year,
          cvv: card.security_code,
          installments: body.installments,
        }
      : undefined,
    card_token: body.card_token ? { token: body.card_token, installments: body.installments } : undefined,
  });
  // The answer is the payment the workflow made (a decline included), as the gateway reported it.
  const p = result.payment;
  if (!p) {
    throw new ApiError(
      503,
      'payment_processing',
      'The payment is being processed',
      'Read the checkout for its outcome',
    );
  }
  const pix = p.paymentData.pix;
  return {
    id: p.id,
    status: p.status,
    authorizationCode: p.authorizationCode,
    amount: p.amount,
    installments: p.installments,
    declineReason: p.declineReason,
    paymentType: p.paymentType,
    card: p.card,
    pix: pix
      ? { qrCode: pix.qr_code, qrCodeImage: pix.qr_code_image, expiresAt: pix.expires_at, url: pix.url ?? null }
      : null,
  };
}

/**
 * A payment with no checkout: a transaction of the seller's organization, with no sale. Made by its
 * own workflow (charge, then record, a lost answer looked up by its key) so that no crash between
 * the gateway and our books loses a payment. A retried request (same Idempotency-Key) joins that
 * workflow and gets its answer. The card is tokenized here: only the token reaches the workflow.
 */
async function chargeStandalone(
  deps: RouteDeps,
  organizationId: string,
  body: DirectTransactionBody,
  idempotencyKey: string,
): Promise<GatewayTransaction> {
  if (body.discount_code) throw badRequest('discount_code needs a checkout_id', 'Discounts apply to checkouts');
  const input: DirectTransactionInput = {
    organizationId,
    idempotencyKey,
    paymentType: body.payment_type,
    amount: body.amount,
    installments: body.installments,
    cardToken: await directCard(deps, `direct:${organizationId}:${idempotencyKey}`, body),
    gatewayBuyerId: body.gateway_buyer_id ?? null,
    customerEmail: body.customer_email ?? null,
    customerTaxId: body.customer_tax_id ?? null,
  };
  const result = await runDirectTransaction(deps, input);
  if (result.outcome === 'refused') {
    throw unprocessable('payment_refused', 'The gateway refused the payment', result.reason);
  }
  return result.payment;
}

/** The request's card made chargeable (its data tokenized, or its browser token kept); null for pix. */
async function directCard(deps: RouteDeps, scope: string, body: DirectTransactionBody): Promise<string | null> {
  const card = body.card;
  const data = card
    ? {
        number: card.card_number,
        holderName: card.holder_name,
        expirationMonth: card.expiration_month,
        expirationYear: card.expiration_year,
        cvv: card.security_code,
      }
    : null;
  const sent = sentCard(deps, data, body.card_token ?? null);
  if (!sent) return null;
  // A one-off charge keeps no card: a browser's single-use token is charged as it is (decision 0074).
  if ('browserToken' in sent && offersCardPayments(deps.gateway) && deps.gateway.browserTokensSingleUse === true)
    return sent.browserToken;
  const owner = { email: body.customer_email ?? null, name: card?.holder_name ?? null };
  return (await chargeableCard(deps, scope, sent, owner)).id;
}

/** How long a request waits for its workflow's answer; past it, a retry with the same key gets it. */
const DIRECT_ANSWER_WAIT_MS = 25_000;

/** Starts the request's workflow, or joins the run of an earlier request with the same key, and waits for its answer. */
async function runDirectTransaction(deps: RouteDeps, input: DirectTransactionInput): Promise<DirectTransactionResult> {
  const workflowId = directTransactionWorkflowId(input.organizationId, input.idempotencyKey);
  let handle: WorkflowHandle<DirectTransactionWorkflow>;
  try {
    handle = await deps.temporal.workflow.start<DirectTransactionWorkflow>('directTransactionWorkflow', {
      workflowId,
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      // A finished run is the request's answer; only a run that failed (nothing charged) is run again.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      typedSearchAttributes: [{ key: ORGANIZATION_ID, value: input.organizationId }],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw paymentProcessing(err);
    handle = deps.temporal.workflow.getHandle(workflowId);
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      handle.result(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer yet')), DIRECT_ANSWER_WAIT_MS);
      }),
    ]);
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure) {
      if (err.cause.type === GATEWAY_UNAVAILABLE) throw gatewayUnavailable();
    }
    // The workflow may still charge and record: only it knows the outcome.
    throw paymentProcessing(err);
  } finally {
    clearTimeout(timer);
  }
}

const gatewayUnavailable = () =>
  new ApiError(503, 'gateway_unavailable', 'The payment gateway is unavailable', 'Retry with the same Idempotency-Key');

function paymentProcessing(cause: unknown) {
  const error = new ApiError(
    503,
    'payment_processing',
    'The payment is being processed',
    'Retry with the same Idempotency-Key for its outcome',
  );
  error.cause = cause;
  return error;
}
