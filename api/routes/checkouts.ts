import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { priceOrFail } from '../../db/catalog/products.ts';
import { listCheckouts, type CheckoutFilter } from '../../db/checkout/lists.ts';
import { subscriptionOfCheckout } from '../../db/subscription/checkout-reads.ts';
import { updateOpenCheckout, type CheckoutFields } from '../../db/checkout/lifecycle.ts';
import { recordEvent } from '../../db/events.ts';
import { customAmountOnReprice } from '../../domain/checkout-pricing.ts';
import { redeemDiscount, releaseRedemption } from '../../db/catalog/discount-redemptions.ts';
import { checkedPricing, createCheckout, discountExhausted, pricingFor } from '../../use-cases/checkout-creation.ts';
import { customerOf, discountOf, ownCheckout, validTaxId } from '../../use-cases/checkout-references.ts';
import { checkoutByClientSecret, publicCheckoutView } from '../checkout-public.ts';
import { conflict, ApiError } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import {
  checkoutAnswer,
  checkoutAnswerSchema,
  checkoutPage,
  checkoutParams,
  checkoutRecord,
  clientSecretParams,
  createCheckoutBody,
  listCheckoutsQuery,
  publicCheckoutSchema,
  updateCheckoutBody,
  type UpdateCheckoutBody,
} from '../../use-cases/schemas/checkouts.ts';
import { storedBillingAddress } from '../../use-cases/schemas/customers.ts';
import { openRenewalCheckout } from '../../use-cases/renewal-checkouts.ts';
import { byPathSecret } from '../plugins/rate-limit.ts';
import { errorResponses, orderBy, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

const tags = ['checkouts'];
/** The spec lists checkouts under OAT scopes only; API keys fall to the admin-only `other` resource. */
const READ = { oat: ['checkouts:read'], apiKey: 'other' } as const;
const WRITE = { oat: ['checkouts:write'], apiKey: 'other' } as const;
const DEPRECATION_DOCS = '/docs#/checkouts/post_api_v1_checkouts_';

export const checkoutsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  collectionRoutes(app, deps);
  itemRoutes(app, deps);
  manualRenewalRoutes(app, deps);
  publicRoutes(app, deps);
};

/**
 * POST / and GET /: opening a checkout (a deprecated product_price_id is answered with a
 * Deprecation header) and the list.
 */
function collectionRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Create a checkout session (starts its checkout workflow)',
        description:
          'The answer is the Checkout record and `url`, the hosted checkout page (PUBLIC_BASE_URL/checkout/c/{client_secret}): ' +
          'send the buyer there to pay, or confirm it from your own page with confirm-sdk. Every answer that presents a ' +
          'checkout (get, list, update, manual renewal) carries it; the checkout events leave it out.',
        body: createCheckoutBody,
        response: { 201: checkoutAnswerSchema, ...errorResponses, 503: errorResponses[400] },
      },
    },
    async (request, reply) => {
      const credential = organizationCredential(request);
      const checkout = await createCheckout(deps, {
        actingOrganizationId: credential.organizationId,
        allowSubOrganizations: credential.kind === 'oat',
        input: request.body,
      });
      if (request.body.product_price_id !== undefined) {
        // RFC 9745: the request used a deprecated field; the link explains what to use instead.
        reply.header('deprecation', 'true');
        reply.header('link', `<${deps.config.publicBaseUrl}${DEPRECATION_DOCS}>; rel="deprecation"; type="text/html"`);
      }
      return reply.status(201).send(checkoutAnswer(checkout, deps.config.publicBaseUrl));
    },
  );

  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'List checkouts',
        querystring: listCheckoutsQuery,
        response: { 200: checkoutPage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const query = request.query;
      const where: CheckoutFilter = { organizationId };
      if (query.status) where.status = query.status;
      if (query.product_id) where.productId = query.product_id;
      if (query.customer_id) where.customerId = query.customer_id;
      const em = deps.orm.em.fork();
      const { checkouts, total } = await listCheckouts(em, where, {
        orderBy: orderBy(
          query.sorting,
          { created_at: 'createdAt', expires_at: 'expiresAt', amount: 'amount' },
          '-created_at',
        ),
        limit: query.limit,
        offset: pageOffset(query),
      });
      return pageOf(
        checkouts.map((c) => checkoutAnswer(c, deps.config.publicBaseUrl)),
        total,
        query.limit,
      );
    },
  );
}

/**
 * GET and PATCH /:id: a checkout of the organization; an update that changes its discount or
 * quantity re-prices it.
 */
function itemRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'Get a checkout',
        params: checkoutParams,
        response: { 200: checkoutAnswerSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      return checkoutAnswer(
        await ownCheckout(deps.orm.em.fork(), request.params.id, organizationId),
        deps.config.publicBaseUrl,
      );
    },
  );

  app.patch(
    '/:id',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Update an open checkout (customer fields, urls, metadata; discount and quantity re-price it)',
        params: checkoutParams,
        body: updateCheckoutBody,
        response: { 200: checkoutAnswerSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const body = request.body;
      const taxId = body.customer_tax_id == null ? body.customer_tax_id : validTaxId(body.customer_tax_id);
      const em = deps.orm.em.fork();
      const checkout = await em.transactional(async (tx) => {
        const found = await ownCheckout(tx, request.params.id, organizationId, true);
        const now = new Date();
        // The guard (open and unexpired) decides first, under the row lock, so its 409 comes before any other answer.
        if (!(await updateOpenCheckout(tx, found.id, {}, now))) {
          throw new ApiError(409, 'checkout_not_open', 'The checkout is not open', `status: ${found.status}`);
        }
        if (body.customer_id) await customerOf(tx, body.customer_id, organizationId);
        const fields = updatedFields(body, taxId);
        if (body.discount_id !== undefined || body.quantity !== undefined) {
          const price = await priceOrFail(tx, found.productPriceId);
          const discountId = body.discount_id === undefined ? found.discountId : body.discount_id;
          const discount = discountId ? await discountOf(tx, discountId, organizationId) : null;
          const quantity = body.quantity ?? found.quantity;
          const custom = customAmountOnReprice(Number(price.unitAmount), {
            subtotalAmount: Number(found.subtotalAmount),
            quantity: found.quantity,
          });
          const priced = checkedPricing(pricingFor(price, found.productId, quantity, custom, discount, now));
          if ((discount?.id ?? null) !== found.discountId) {
            await releaseRedemption(tx, found.id);
            if (discount && (await redeemDiscount(tx, discount.id, found.id)) === 'exhausted') {
              throw discountExhausted(discount.id);
            }
          }
          Object.assign(fields, {
            quantity,
            discountId: discount?.id ?? null,
            subtotalAmount: priced.subtotal,
            discountAmount: priced.discountAmount,
            amount: priced.amount,
          });
        }
        const updated = (await updateOpenCheckout(tx, found.id, fields, now))!;
        recordEvent(tx, organizationId, 'checkout.updated', checkoutRecord(updated));
        return updated;
      });
      return checkoutAnswer(checkout, deps.config.publicBaseUrl);
    },
  );
}

/**
 * POST /:id/manual-renewal-checkout: the checkout that pays the next period of a manually billed
 * subscription.
 */
function manualRenewalRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/:id/manual-renewal-checkout',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: 'Open the checkout that pays the next period of a manually billed subscription',
        description:
          "The path id is a succeeded checkout with recurrence_billing manual; the new checkout charges the same customer, price and quantity for the subscription's next period. " +
          'A payable (open or confirmed) renewal checkout of that period is answered as it is (200) rather than opened twice; paying it moves the subscription to that period.',
        params: checkoutParams,
        response: { 200: checkoutAnswerSchema, 201: checkoutAnswerSchema, ...errorResponses, 503: errorResponses[400] },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const em = deps.orm.em.fork();
      const original = await ownCheckout(em, request.params.id, organizationId);
      if (original.status !== 'succeeded' || original.recurrenceBilling !== 'manual') {
        throw conflict(
          'The checkout cannot be renewed manually',
          `Needs a succeeded checkout with recurrence_billing manual (status: ${original.status}, recurrence_billing: ${original.recurrenceBilling})`,
        );
      }
      const subscription = await subscriptionOfCheckout(em, organizationId, original);
      if (!subscription || subscription.status === 'canceled') {
        throw conflict('The checkout has no renewable subscription', 'Its subscription is missing or canceled');
      }
      const opened = await openRenewalCheckout(deps, { organizationId, original, subscription });
      return reply.status(opened.created ? 201 : 200).send(checkoutAnswer(opened.checkout, deps.config.publicBaseUrl));
    },
  );
}

/** GET /client/:client_secret: what the hosted checkout page reads, without a credential. */
function publicRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/client/:client_secret',
    {
      // The page of a pending pix polls this: a count per checkout, apart from its page loads.
      config: { rateLimitVisitor: byPathSecret('poll') },
      schema: {
        tags: ['checkouts (public)'],
        summary: 'Read a checkout by its client_secret (public: the hosted checkout page)',
        params: clientSecretParams,
        response: { 200: publicCheckoutSchema, ...errorResponses },
      },
    },
    async (request) => {
      const em = deps.orm.em.fork();
      return publicCheckoutView(em, await checkoutByClientSecret(em, request.params.client_secret), deps.gateway);
    },
  );
}

/** Sets the sent fields; null clears a nullable one. */
/** The fields a PATCH body sets (those it leaves out stay as they are). */
function updatedFields(body: UpdateCheckoutBody, taxId: string | null | undefined): CheckoutFields {
  const fields: CheckoutFields = {};
  if (body.customer_id !== undefined) fields.customerId = body.customer_id;
  if (body.customer_name !== undefined) fields.customerName = body.customer_name;
  if (body.customer_email !== undefined) fields.customerEmail = body.customer_email;
  if (body.customer_ip_address !== undefined) fields.customerIpAddress = body.customer_ip_address;
  if (body.customer_billing_name !== undefined) fields.customerBillingName = body.customer_billing_name;
  if (body.customer_billing_address !== undefined) {
    fields.customerBillingAddress = body.customer_billing_address
      ? storedBillingAddress(body.customer_billing_address)
      : null;
  }
  if (taxId !== undefined) fields.customerTaxId = taxId;
  if (body.customer_metadata !== undefined) fields.customerMetadata = body.customer_metadata;
  if (body.is_business_customer !== undefined) fields.isBusinessCustomer = body.is_business_customer;
  if (body.external_customer_id !== undefined) fields.externalCustomerId = body.external_customer_id;
  if (body.metadata !== undefined) fields.metadata = body.metadata;
  if (body.success_url !== undefined) fields.successUrl = body.success_url;
  if (body.cancel_url !== undefined) fields.cancelUrl = body.cancel_url;
  return fields;
}
