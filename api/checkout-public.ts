import type { EntityManager } from '@mikro-orm/postgresql';
import { priceOrFail, productOrFail, type PriceRow } from '../db/catalog/products.ts';
import { checkoutBySecret } from '../db/checkout/public-reads.ts';
import { findOrganization } from '../db/organization/organizations.ts';
import { maxInstallments } from '../domain/checkout-pricing.ts';
import { offersPixAutomaticoOptIn } from '../domain/checkout-eligibility.ts';
import { offersPixAutomatico } from '../gateway/capabilities.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { DEFAULT_MONTHLY_RATE_BASIS_POINTS, installmentOptions } from '../domain/installments.ts';
import { notFound } from '../use-cases/errors.ts';
import type { CheckoutEntity, PublicCheckout } from '../use-cases/schemas/checkouts.ts';
import { iso } from '../use-cases/schemas/common.ts';

/** What a buyer's side reaches of a checkout: by its client secret, and the hosted page's view of it. */

/**
 * The hosted page's view of a checkout: what the buyer sees, nothing of the merchant's own data; with
 * what its gateway lets the buyer choose (Pix Automático).
 */
export async function publicCheckoutView(
  em: EntityManager,
  checkout: CheckoutEntity,
  gateway: PaymentGateway,
): Promise<PublicCheckout> {
  const [product, price, organization] = await Promise.all([
    productOrFail(em, checkout.productId),
    priceOrFail(em, checkout.productPriceId),
    findOrganization(em, checkout.organizationId),
  ]);
  // The checkout's organization exists (a foreign key): its absence is a broken database, not a 404.
  if (!organization) throw new Error(`Organization ${checkout.organizationId} of checkout ${checkout.id} not found`);
  return {
    id: checkout.id,
    status: checkout.status,
    amount: Number(checkout.amount),
    currency: checkout.currency,
    subtotal_amount: Number(checkout.subtotalAmount),
    discount_amount: Number(checkout.discountAmount),
    quantity: checkout.quantity,
    product: productView(product),
    price: priceView(price),
    customer_email: checkout.customerEmail ?? null,
    customer_name: checkout.customerName ?? null,
    success_url: checkout.successUrl ?? null,
    cancel_url: checkout.cancelUrl ?? null,
    expires_at: iso(checkout.expiresAt)!,
    allow_discount_codes: checkout.allowDiscountCodes,
    require_billing_address: checkout.requireBillingAddress,
    is_business_customer: checkout.isBusinessCustomer,
    trial_interval: checkout.trialInterval ?? null,
    trial_interval_count: checkout.trialIntervalCount ?? null,
    recurrence_billing: checkout.recurrenceBilling,
    pix_automatico_offered: offersPixAutomaticoOptIn(
      {
        price: { id: price.id, type: price.type, interval: price.interval, intervalCount: price.intervalCount },
        recurrenceBilling: checkout.recurrenceBilling,
        trial: checkout.trialInterval != null,
        ofSubscription: checkout.subscriptionId != null,
      },
      { pixAutomatico: offersPixAutomatico(gateway) },
    ),
    payment_method: checkout.paymentMethod ?? null,
    gateway_payment_data: checkout.gatewayPaymentData ?? null,
    decline_reason: checkout.declineReason ?? null,
    max_installments: maxInstallments(price),
    no_fees_installments: checkout.noFeesInstallments,
    installment_options: installmentOptionsView(
      Number(checkout.amount),
      checkout.noFeesInstallments,
      maxInstallments(price),
    ),
    organization: organizationView(organization),
  };
}

/** Each number of instalments the buyer may choose for `amount`, with what it costs them (domain/installments.ts). */
function installmentOptionsView(amount: number, noFees: boolean, max: number): PublicCheckout['installment_options'] {
  return installmentOptions(amount, { noFees, monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS }, max).map(
    (o) => ({ installments: o.installments, total: o.total, installment_amount: o.installmentAmounts[0]! }),
  );
}

/** The view with another discount and total (a discount code's preview), its instalments recomputed. */
export function repricedView(view: PublicCheckout, price: { discountAmount: number; amount: number }): PublicCheckout {
  return {
    ...view,
    discount_amount: price.discountAmount,
    amount: price.amount,
    installment_options: installmentOptionsView(price.amount, view.no_fees_installments, view.max_installments),
  };
}

/** The seller, the product and its price as a buyer's page shows them (the checkout's and its link's). */
export const organizationView = (o: { name: string; slug: string; avatarUrl?: string | null }) => ({
  name: o.name,
  slug: o.slug,
  avatar_url: o.avatarUrl ?? null,
});
export const productView = (p: { id: string; name: string; description?: string | null }) => ({
  id: p.id,
  name: p.name,
  description: p.description ?? null,
});
export function priceView(p: PriceRow): PublicCheckout['price'] {
  return {
    id: p.id,
    type: p.type,
    interval: p.interval ?? null,
    interval_count: p.intervalCount ?? null,
    unit_amount: Number(p.unitAmount),
  };
}

/** The shape of the client secrets we hand out: anything else is not looked up. */
export const isClientSecret = (value: string) => /^cs_[A-Za-z0-9_-]{43}$/.test(value);

/** The checkout a client_secret opens; an unknown secret is a 404. */
export async function checkoutByClientSecret(em: EntityManager, clientSecret: string): Promise<CheckoutEntity> {
  const checkout = isClientSecret(clientSecret) ? await checkoutBySecret(em, clientSecret) : null;
  if (!checkout) throw notFound('Checkout');
  return checkout;
}
