import type { RecurrenceBilling } from '../domain/subscriptions.ts';
import { offersPixAutomatico, offersRecurringBilling } from '../gateway/capabilities.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import type { DiscountRow } from '../db/catalog/discounts.ts';
import {
  customerOf,
  discountOf,
  linkOf,
  subscriptionExists,
  subscriptionOf,
  validTaxId,
} from './checkout-references.ts';
import { redeemDiscount, releaseRedemption } from '../db/catalog/discount-redemptions.ts';
import { secondSubscriptionRefused } from '../db/customer/checkout-customers.ts';
import { recordEvent } from '../db/events.ts';
import { transitionCheckout } from '../db/checkout/lifecycle.ts';
import { insertCheckout } from '../db/checkout/records.ts';
import {
  checkoutExpiresAt,
  recurrenceBillingOf,
  termsRefusal,
  type RecurrenceRails,
} from '../domain/checkout-eligibility.ts';
import { isPricingError, priceCheckout, type CheckoutPrice } from '../domain/checkout-pricing.ts';
import { discountRule } from '../domain/discounts.ts';
import { applyBalance } from '../domain/proration.ts';
import { ApiError, badRequest, unprocessable } from './errors.ts';
import { checkoutRecord, type CheckoutEntity, type CreateCheckoutInput } from './schemas/checkouts.ts';
import { storedBillingAddress } from './schemas/customers.ts';
import { ensureCheckoutWorkflow } from '../temporal/workflow-starts.ts';
import { upgradedSubscription, type CheckoutUpgrade } from './checkout-upgrades.ts';
import {
  chargedProductAndPrice,
  offeredProducts,
  refuse,
  type PriceEntity,
  type ProductEntity,
} from './checkout-products.ts';
import { checkoutWorkflowId } from '../contracts/checkout.ts';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';

/**
 * What opening a checkout needs: the database, Temporal to start the checkout's workflow, and the
 * gateway, asked whether it bills recurring prices itself.
 */
export interface CheckoutDeps {
  orm: Orm;
  temporal: Client;
  config: Config;
  gateway: PaymentGateway;
}

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

/**
 * Creating a checkout, shared by `POST /api/v1/checkouts/`, the checkout-link page and the manual
 * renewal: resolve and check the product, price, discount, customer, subscription and link; price it
 * (domain/checkout-pricing.ts); write the row and its `checkout.created` event and start its workflow.
 *
 * Atomicity: the row and its event commit first, then the workflow starts. When the start fails, the
 * checkout is closed again (expired at once, its discount given back, with its own checkout.updated)
 * and the request answers 503, so nothing payable stays behind without a workflow.
 * (Starting first is not an option: the workflow's first step loads the row and fails for good when it
 * is missing.) The one gap left is a crash of the API process between the commit and the start: an
 * open checkout without a workflow, which the periodic sweep repairs (`ensureCheckoutWorkflow`,
 * temporal/workflow-starts.ts, idempotent).
 */
export async function createCheckout(deps: CheckoutDeps, request: CreateCheckoutRequest): Promise<CheckoutEntity> {
  const taxId = checkedFields(request.input);
  const now = new Date();
  const checkout = await deps.orm.em.fork().transactional(async (tx) => {
    const sale = await pricedSale(tx, request, now, {
      gatewayRecurrence: offersRecurringBilling(deps.gateway),
      pixAutomatico: offersPixAutomatico(deps.gateway),
    });
    const upgrade = await checkedBuyer(tx, request, sale.price, sale.product.organizationId);
    const checkout = await newCheckout(tx, request, { sale, upgrade, taxId, now });
    if (sale.discount) await redeemWith(tx, sale.discount.id, checkout.id);
    recordEvent(tx, checkout.organizationId, 'checkout.created', checkoutRecord(checkout));
    return checkout;
  });
  await startWorkflowOrClose(deps, checkout);
  return checkout;
}

/** The request's rules between fields (400s) and its tax id (a 422), answered before anything is read. */
function checkedFields(input: CreateCheckoutInput): string | null {
  if (!input.product_id && !input.product_price_id && !input.products?.length) {
    throw badRequest('A product is required', 'Send product_id (recommended), product_price_id or products');
  }
  if ((input.trial_interval === undefined) !== (input.trial_interval_count === undefined)) {
    throw badRequest('Incomplete trial', 'trial_interval and trial_interval_count go together');
  }
  return input.customer_tax_id == null ? null : validTaxId(input.customer_tax_id);
}

/** What the checkout sells and for how much. */
interface Sale {
  product: ProductEntity;
  price: PriceEntity;
  /** The products offered, the charged one first. */
  products: string[];
  discount: DiscountRow | null;
  priced: CheckoutPrice;
  /** What the subscription's balance adds to a renewal's amount (negative: a credit). */
  balanceApplied: number;
  /** Who bills the renewals (domain/checkout-eligibility.ts recurrenceBillingOf). */
  recurrenceBilling: RecurrenceBilling;
}

/** The product, price and products the checkout sells, its terms checked, its discount and balance priced in. */
async function pricedSale(
  tx: EntityManager,
  request: CreateCheckoutRequest,
  now: Date,
  rails: RecurrenceRails,
): Promise<Sale> {
  const { input } = request;
  const { product, price } = await chargedProductAndPrice(tx, request);
  const products = await offeredProducts(tx, product, input.products ?? []);

  refuse(
    termsRefusal(price, { trial: input.trial_interval !== undefined, recurrenceBilling: input.recurrence_billing }),
  );
  const recurrenceBilling = recurrenceBillingOf(input.recurrence_billing, price, rails);
  if (typeof recurrenceBilling !== 'string') refuse(recurrenceBilling);

  let discount = input.discount_id ? await discountOf(tx, input.discount_id, product.organizationId) : null;
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
  return {
    product,
    price,
    products,
    discount,
    priced,
    balanceApplied,
    recurrenceBilling: recurrenceBilling as RecurrenceBilling,
  };
}

/**
 * The customer, subscription and link the request names, checked in the organization; the upgrade the
 * checkout is, if it names a subscription without renewing it.
 */
async function checkedBuyer(
  tx: EntityManager,
  request: CreateCheckoutRequest,
  price: PriceEntity,
  organizationId: string,
): Promise<CheckoutUpgrade | null> {
  const { input } = request;
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
  return upgrade;
}

/** The open checkout's row, as the request and its priced sale make it. */
async function newCheckout(
  tx: EntityManager,
  request: CreateCheckoutRequest,
  made: { sale: Sale; upgrade: CheckoutUpgrade | null; taxId: string | null; now: Date },
): Promise<CheckoutEntity> {
  const { input } = request;
  const { sale, upgrade, taxId, now } = made;
  const { product, price, priced, balanceApplied } = sale;
  const id = uuidv7();
  return insertCheckout(tx, {
    id,
    organizationId: product.organizationId,
    status: 'open',
    clientSecret: newClientSecret(),
    workflowId: checkoutWorkflowId(id),
    productId: product.id,
    productPriceId: price.id,
    products: sale.products,
    checkoutLinkId: input.checkout_link_id ?? null,
    quantity: input.quantity,
    currency: price.currency.toUpperCase(),
    subtotalAmount: priced.subtotal,
    discountAmount: priced.discountAmount,
    amount: priced.amount + balanceApplied,
    balanceApplied,
    discountId: sale.discount?.id ?? null,
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
    recurrenceBilling: upgrade?.recurrenceBilling ?? sale.recurrenceBilling,
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
    expiresAt: checkoutExpiresAt(now, input.expires_in_minutes),
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * The redemption is counted with the checkout that takes the discount, exactly once, under the
 * discount's max_redemptions even when checkouts are created concurrently.
 */
async function redeemWith(tx: EntityManager, discountId: string, checkoutId: string): Promise<void> {
  await tx.flush();
  if ((await redeemDiscount(tx, discountId, checkoutId)) === 'exhausted') {
    throw discountExhausted(discountId);
  }
}

/** Starts the committed checkout's workflow; when Temporal refuses, closes the checkout and answers 503. */
async function startWorkflowOrClose(deps: CheckoutDeps, checkout: CheckoutEntity): Promise<void> {
  try {
    await ensureCheckoutWorkflow(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, checkout);
  } catch (err) {
    await closeUnstarted(deps, checkout.id);
    throw new ApiError(
      503,
      'workflow_unavailable',
      'The checkout could not be started',
      `Checkout ${checkout.id} was closed (expired) unused; retry later (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}

/**
 * Its checkout.created is committed (a webhook may have carried it already): the checkout is not
 * deleted with it but closed, expired at once, by a change with its own event; its discount given back.
 */
async function closeUnstarted(deps: CheckoutDeps, checkoutId: string): Promise<void> {
  await deps.orm.em.fork().transactional(async (tx) => {
    const now = new Date();
    // Through the state machine's guard: a checkout that left open meanwhile is left as it is.
    const closed = await transitionCheckout(tx, checkoutId, 'expire', { expiresAt: now }, now);
    if (!closed) return;
    await releaseRedemption(tx, checkoutId);
    recordEvent(tx, closed.organizationId, 'checkout.updated', checkoutRecord(closed));
  });
}

/** The 422 of a discount whose max_redemptions are all taken. */
export const discountExhausted = (discountId: string | null) =>
  unprocessable(
    'discount_exhausted',
    'Discount has no redemptions left',
    discountId ? `discount ${discountId}` : undefined,
  );

export function pricingFor(
  price: Pick<PriceEntity, 'unitAmount' | 'currency'>,
  productId: string,
  quantity: number,
  customAmount: number | null,
  discount: DiscountRow | null,
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
      // Used up is one answer whether the count said so or the redemption did (redeemWith, confirm-sdk's code).
      if (result.reason === 'exhausted') throw discountExhausted(null);
      throw unprocessable('discount_not_applicable', 'The discount does not apply to this checkout', result.reason);
  }
}
