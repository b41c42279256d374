import { randomBytes } from 'node:crypto';
import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import {
  Checkout,
  CheckoutLink,
  Customer,
  Discount,
  Organization,
  Price,
  Product,
  Subscription,
} from '../db/entities/index.ts';
import { redeemDiscount, releaseRedemption } from '../db/discount-redemptions.ts';
import { secondSubscriptionRefused } from '../db/checkout-customers.ts';
import { recordEvent } from '../db/events.ts';
import { checkoutTransition, SUBSCRIPTION_EXISTS } from '../domain/checkout.ts';
import { checkoutExpiresAt, offerRefusal, termsRefusal, type CheckoutRefusal } from '../domain/checkout-eligibility.ts';
import { isPricingError, priceCheckout, type CheckoutPrice } from '../domain/checkout-pricing.ts';
import { discountRule } from '../domain/discounts.ts';
import { applyBalance } from '../domain/proration.ts';
import { parseTaxId } from '../domain/tax-id.ts';
import { ApiError, badRequest, notFound, unprocessable } from './errors.ts';
import { checkoutRecord, type CheckoutEntity, type CreateCheckoutInput } from './schemas/checkouts.ts';
import { isUuid } from './schemas/common.ts';
import { storedBillingAddress } from './schemas/customers.ts';
import { ensureCheckoutWorkflow } from '../temporal/workflow-starts.ts';
import { upgradedSubscription } from './checkout-upgrades.ts';
import { checkoutWorkflowId } from '../contracts/checkout.ts';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';

/** What opening a checkout needs: the database, and Temporal to start the checkout's workflow. */
export interface CheckoutDeps {
  orm: Orm;
  temporal: Client;
  config: Config;
}

/**
 * Creating a checkout, shared by `POST /api/v1/checkouts/`, the checkout-link page and the manual
 * renewal: resolve and check the product, price, discount, customer, subscription and link; price it
 * (domain/checkout-pricing.ts); write the row and its `checkout.created` event and start its workflow.
 *
 * Atomicity: the row and its event commit first, then the workflow starts. When the start fails, the
 * row and its event are deleted again and the request answers 503, so nothing half-made stays behind.
 * (Starting first is not an option: the workflow's first step loads the row and fails for good when it
 * is missing.) The one gap left is a crash of the API process between the commit and the start: an
 * open checkout without a workflow, which the periodic sweep repairs (`ensureCheckoutWorkflow`,
 * temporal/workflow-starts.ts, idempotent).
 */

type ProductEntity = InferEntity<typeof Product>;
type PriceEntity = InferEntity<typeof Price>;
type DiscountEntity = InferEntity<typeof Discount>;

/** `cs_` + 43 base64url characters (32 random bytes). */
export function newClientSecret(): string {
  return `cs_${randomBytes(32).toString('base64url')}`;
}

export interface CreateCheckoutRequest {
  /** The organization asking: the credential's, or the link's for the public link page. */
  actingOrganizationId: string;
  /** The spec's parent rule: an OAT may create checkouts for its direct sub-organizations' products. */
  allowSubOrganizations: boolean;
  input: CreateCheckoutInput;
  /**
   * `strict` (the API): a discount that does not apply is a 422. `when_applicable` (a checkout link
   * opened by a buyer): the checkout is created at full price instead of showing the buyer an error.
   */
  discountPolicy?: 'strict' | 'when_applicable';
  /**
   * A renewal of an existing subscription, paying its period `period`: its price still renews after
   * being archived for new buyers.
   */
  renewal?: { period: number; balance?: number };
}

export async function createCheckout(deps: CheckoutDeps, request: CreateCheckoutRequest): Promise<CheckoutEntity> {
  const { input } = request;
  if (!input.product_id && !input.product_price_id && !input.products?.length) {
    throw badRequest('A product is required', 'Send product_id (recommended), product_price_id or products');
  }
  if ((input.trial_interval === undefined) !== (input.trial_interval_count === undefined)) {
    throw badRequest('Incomplete trial', 'trial_interval and trial_interval_count go together');
  }
  const taxId = input.customer_tax_id == null ? null : validTaxId(input.customer_tax_id);

  const em = deps.orm.em.fork();
  const now = new Date();
  const checkout = await em.transactional(async (tx) => {
    const { product, price } = await chargedProductAndPrice(tx, request);
    const organizationId = product.organizationId;
    const products = await offeredProducts(tx, product, input.products ?? []);

    refuse(
      termsRefusal(price, { trial: input.trial_interval !== undefined, recurrenceBilling: input.recurrence_billing }),
    );

    let discount = input.discount_id ? await discountOf(tx, input.discount_id, organizationId) : null;
    let pricing = pricingFor(price, product.id, input.quantity, input.amount ?? null, discount, now);
    if (
      isPricingError(pricing) &&
      pricing.error === 'discount_not_applicable' &&
      request.discountPolicy === 'when_applicable'
    ) {
      discount = null;
      pricing = pricingFor(price, product.id, input.quantity, input.amount ?? null, null, now);
    }
    const priced = checkedPricing(pricing);
    // A renewal checkout takes its subscription's balance (domain/proration.ts): a plan change's credit
    // lowers its amount, never below zero; an amount owed raises it. Its sale moves the balance by this.
    const balanceApplied = request.renewal
      ? applyBalance(priced.amount, request.renewal.balance ?? 0).charge - priced.amount
      : 0;

    if (input.customer_id) await customerOf(tx, input.customer_id, organizationId);
    if (input.subscription_id && request.renewal) await subscriptionOf(tx, input.subscription_id, organizationId);
    const upgrade =
      input.subscription_id && !request.renewal ? await upgradedSubscription(tx, input, price, organizationId) : null;
    // A customer the request already names is checked now (else at confirmation); one-time sales skip
    // it, and so do renewals and upgrades, which pay the subscription the customer has.
    const buyer = {
      customerId: upgrade?.customerId ?? input.customer_id ?? null,
      externalCustomerId: input.external_customer_id ?? null,
      email: input.customer_email ?? null,
    };
    if (
      price.type === 'recurring' &&
      !input.subscription_id &&
      (await secondSubscriptionRefused(tx, organizationId, buyer, { renewal: false }))
    ) {
      throw subscriptionExists();
    }
    if (input.checkout_link_id) await linkOf(tx, input.checkout_link_id, organizationId);

    const id = uuidv7();
    const expiresAt = checkoutExpiresAt(now, input.expires_in_minutes);
    const checkout = tx.create(Checkout, {
      id,
      organizationId,
      status: 'open',
      clientSecret: newClientSecret(),
      workflowId: checkoutWorkflowId(id),
      productId: product.id,
      productPriceId: price.id,
      products,
      checkoutLinkId: input.checkout_link_id ?? null,
      quantity: input.quantity,
      currency: price.currency.toUpperCase(),
      subtotalAmount: priced.subtotal,
      discountAmount: priced.discountAmount,
      amount: priced.amount + balanceApplied,
      balanceApplied,
      discountId: discount?.id ?? null,
      allowDiscountCodes: input.allow_discount_codes,
      customerId: upgrade?.customerId ?? input.customer_id ?? null,
      externalCustomerId: input.external_customer_id ?? null,
      isBusinessCustomer: input.is_business_customer ?? false,
      customerName: input.customer_name ?? null,
      customerEmail: input.customer_email ?? null,
      customerIpAddress: input.customer_ip_address ?? null,
      customerBillingName: input.customer_billing_name ?? null,
      customerBillingAddress: input.customer_billing_address
        ? storedBillingAddress(input.customer_billing_address)
        : null,
      customerTaxId: taxId,
      customerMetadata: input.customer_metadata ?? {},
      subscriptionId: input.subscription_id ?? null,
      renewalPeriod: request.renewal?.period ?? null,
      recurrenceBilling: upgrade?.recurrenceBilling ?? input.recurrence_billing,
      trialInterval: input.trial_interval ?? null,
      trialIntervalCount: input.trial_interval_count ?? null,
      requireBillingAddress: input.require_billing_address,
      successUrl: input.success_url ?? null,
      cancelUrl: input.cancel_url ?? null,
      embedOrigin: input.embed_origin ?? null,
      metadata: input.metadata ?? {},
      noFeesInstallments: input.no_fees_installments,
      paymentMethod: null,
      gatewayPaymentData: null,
      declineReason: null,
      expiresAt,
      createdAt: now,
      updatedAt: now,
    });
    if (discount) {
      // The redemption is counted with the checkout that takes the discount, exactly once, under the
      // discount's max_redemptions even when checkouts are created concurrently.
      await tx.flush();
      if ((await redeemDiscount(tx, discount.id, id)) === 'exhausted') {
        throw unprocessable('discount_exhausted', 'Discount has no redemptions left', `discount ${discount.id}`);
      }
    }
    recordEvent(tx, organizationId, 'checkout.created', checkoutRecord(checkout));
    return checkout;
  });
  try {
    await ensureCheckoutWorkflow(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, checkout);
  } catch (err) {
    // Its checkout.created is committed (a webhook may have carried it already): the checkout is not
    // deleted with it but closed, expired at once, by a change with its own event; its discount given back.
    await deps.orm.em.fork().transactional(async (tx) => {
      const closed = await tx.findOneOrFail(Checkout, { id: checkout.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      closed.status = checkoutTransition(closed.status, 'expire') ?? closed.status;
      closed.expiresAt = closed.updatedAt = new Date();
      await releaseRedemption(tx, checkout.id);
      recordEvent(tx, closed.organizationId, 'checkout.updated', checkoutRecord(closed));
    });
    throw new ApiError(
      503,
      'workflow_unavailable',
      'The checkout could not be started',
      `Checkout ${checkout.id} was closed (expired) unused; retry later (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  return checkout;
}

/**
 * The charged product and its price. product_price_id names the price (and, without product_id, the
 * product); otherwise the product's default price. Products of another organization are 404, except a
 * direct sub-organization's for an OAT of its parent.
 */
async function chargedProductAndPrice(
  em: EntityManager,
  request: CreateCheckoutRequest,
): Promise<{ product: ProductEntity; price: PriceEntity }> {
  const { input } = request;
  let price: PriceEntity | null = null;
  if (input.product_price_id) {
    price = await em.findOne(Price, { id: input.product_price_id, deletedAt: null });
    if (!price || !(await mayUse(em, request, price.organizationId))) throw notFound('Price');
  }
  const productId = input.product_id ?? price?.productId ?? input.products![0]!;
  const product = await em.findOne(Product, { id: productId });
  if (!product || !(await mayUse(em, request, product.organizationId))) throw notFound('Product');
  refuse(offerRefusal(product, null, Boolean(request.renewal)));
  if (price && price.productId !== product.id) {
    throw unprocessable(
      'price_not_of_product',
      'product_price_id is not a price of product_id',
      `price ${price.id}, product ${product.id}`,
    );
  }
  if (!price) {
    if (!product.defaultPriceId) {
      throw unprocessable('no_default_price', 'The product has no default price', `product ${product.id}`);
    }
    price = await em.findOne(Price, { id: product.defaultPriceId, deletedAt: null });
    if (!price) throw unprocessable('no_default_price', 'The product has no default price', `product ${product.id}`);
  }
  refuse(offerRefusal(product, price, Boolean(request.renewal)));
  return { product, price };
}

/** A rule of domain/checkout-eligibility.ts refused the checkout: a 422. */
function refuse(refusal: CheckoutRefusal | null): void {
  if (refusal) throw unprocessable(refusal.code, refusal.message, refusal.detail);
}

async function mayUse(em: EntityManager, request: CreateCheckoutRequest, organizationId: string): Promise<boolean> {
  if (organizationId === request.actingOrganizationId) return true;
  if (!request.allowSubOrganizations) return false;
  const child = await em.findOne(Organization, { id: organizationId }, { fields: ['id', 'parentOrganizationId'] });
  return child?.parentOrganizationId === request.actingOrganizationId;
}

/** The products offered, charged product first; all of the checkout's organization and not archived. */
async function offeredProducts(
  em: EntityManager,
  charged: ProductEntity,
  listed: readonly string[],
): Promise<string[]> {
  const ids = [...new Set([charged.id, ...listed])];
  if (ids.length === 1) return ids;
  const found = await em.find(Product, { id: { $in: ids }, organizationId: charged.organizationId });
  const byId = new Map(found.map((p) => [p.id, p]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw notFound('Product');
  const archived = ids.filter((id) => byId.get(id)!.isArchived);
  if (archived.length > 0) {
    throw unprocessable('product_archived', 'The product is archived', `products: ${archived.join(', ')}`);
  }
  return ids;
}

export function pricingFor(
  price: Pick<PriceEntity, 'unitAmount' | 'currency'>,
  productId: string,
  quantity: number,
  customAmount: number | null,
  discount: DiscountEntity | null,
  now: Date,
) {
  return priceCheckout({
    unitAmount: Number(price.unitAmount),
    quantity,
    customAmount,
    discount: discount ? discountRule(discount) : null,
    currency: price.currency,
    productId,
    now,
  });
}

/** Turns a pricing refusal into the API's error. */
export function checkedPricing(result: ReturnType<typeof priceCheckout>): CheckoutPrice {
  if (!isPricingError(result)) return result;
  switch (result.error) {
    case 'amount_required':
      throw unprocessable('amount_required', 'amount is required for a free-price product', 'Send amount >= 1 (cents)');
    case 'amount_not_allowed':
      throw unprocessable(
        'amount_not_allowed',
        'amount is only accepted for free-price products',
        'The price sets the amount; leave amount out',
      );
    case 'invalid_amount':
      throw unprocessable('invalid_amount', 'The amount must be at least 1 cent');
    case 'invalid_quantity':
      throw badRequest('Invalid quantity', 'quantity must be an integer >= 1');
    case 'amount_too_large':
      throw unprocessable('amount_too_large', 'The total amount is too large');
    case 'discount_not_applicable':
      throw unprocessable('discount_not_applicable', 'The discount does not apply to this checkout', result.reason);
  }
}

export async function discountOf(em: EntityManager, id: string, organizationId: string): Promise<DiscountEntity> {
  const discount = await em.findOne(Discount, { id, organizationId, deletedAt: null });
  if (!discount) throw unprocessable('discount_not_found', 'Discount not found', `discount_id ${id}`);
  return discount;
}

export async function customerOf(em: EntityManager, id: string, organizationId: string): Promise<void> {
  const customer = await em.findOne(Customer, { id, organizationId, deletedAt: null }, { fields: ['id'] });
  if (!customer) throw unprocessable('customer_not_found', 'Customer not found', `customer_id ${id}`);
}

async function subscriptionOf(em: EntityManager, id: string, organizationId: string): Promise<void> {
  const subscription = await em.findOne(Subscription, { id, organizationId }, { fields: ['id'] });
  if (!subscription) throw unprocessable('subscription_not_found', 'Subscription not found', `subscription_id ${id}`);
}

/** The 422 of a checkout whose customer already has a live subscription (allow_multiple_subscriptions false). */
export const subscriptionExists = () =>
  unprocessable(
    SUBSCRIPTION_EXISTS,
    'The customer already has a subscription',
    'The organization allows one live subscription per customer: change its plan instead',
  );

async function linkOf(em: EntityManager, id: string, organizationId: string): Promise<void> {
  const link = await em.findOne(CheckoutLink, { id, organizationId }, { fields: ['id', 'isArchived'] });
  if (!link) throw unprocessable('checkout_link_not_found', 'Checkout link not found', `checkout_link_id ${id}`);
  if (link.isArchived) {
    throw unprocessable('checkout_link_archived', 'The checkout link is archived', `checkout_link_id ${id}`);
  }
}

/** CPF or CNPJ by its check digits; stored as digits. */
export function validTaxId(input: string): string {
  const parsed = parseTaxId(input);
  if (!parsed) throw unprocessable('invalid_tax_id', 'Invalid customer_tax_id', 'Expected a valid CPF or CNPJ');
  return parsed.number;
}

/** The checkout of the organization, locked for update; any other (or a malformed id) is a 404. */
export async function ownCheckout(
  em: EntityManager,
  id: string,
  organizationId: string,
  forUpdate = false,
): Promise<CheckoutEntity> {
  const checkout = isUuid(id)
    ? await em.findOne(Checkout, { id, organizationId }, forUpdate ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {})
    : null;
  if (!checkout) throw notFound('Checkout');
  return checkout;
}
