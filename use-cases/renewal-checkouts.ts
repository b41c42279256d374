import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { liveDiscount } from '../db/catalog/checkout-creation-reads.ts';
import { payableRenewalCheckout } from '../db/checkout/own-checkouts.ts';
import type { SubscriptionRow } from '../db/subscription/record.ts';
import { discountCarriesOverToRenewal } from '../domain/checkout.ts';
import { renewalCheckoutExpiryMinutes } from '../domain/checkout-eligibility.ts';
import { createCheckout, type CheckoutDeps } from './checkout-creation.ts';
import type { CheckoutEntity, CreateCheckoutInput } from './schemas/checkouts.ts';

/**
 * The checkout that pays a manually billed subscription's next period: the same customer, price and
 * quantity as the checkout that sold it, and its discount while the discount's duration lasts. At most
 * one is payable (open or confirmed) per subscription and period (a unique index): an existing one is
 * answered as it is, and of two racing openings one wins. Opened by the merchant
 * (`POST /checkouts/<id>/manual-renewal-checkout`) or by the subscription's workflow when a period
 * ends with no card it can charge (then open until its dunning deadline, `expiresAt`).
 */
export async function openRenewalCheckout(
  deps: CheckoutDeps,
  args: { organizationId: string; original: CheckoutEntity; subscription: SubscriptionRow; expiresAt?: Date },
): Promise<{ checkout: CheckoutEntity; created: boolean }> {
  const { organizationId, original, subscription } = args;
  const em = deps.orm.em.fork();
  const period = subscription.periodNumber + 1;
  const payable = () => payableRenewalCheckout(em, organizationId, subscription.id, period);
  const open = await payable();
  if (open) return { checkout: open, created: false };
  const held = subscription.discountId ? await liveDiscount(em, subscription.discountId) : null;
  const discount = held && discountCarriesOverToRenewal(held) ? held : null;
  const address = original.customerBillingAddress;
  const input: CreateCheckoutInput = {
    payment_processor: 'gateway',
    product_id: subscription.productId,
    product_price_id: subscription.priceId,
    discount_id: discount?.id,
    allow_discount_codes: false,
    quantity: original.quantity,
    customer_id: subscription.customerId,
    customer_name: original.customerName,
    customer_email: original.customerEmail,
    customer_billing_name: original.customerBillingName,
    customer_billing_address: address
      ? {
          line1: address.line1,
          city: address.city,
          country: address.country,
          ...(address.state ? { state: address.state } : {}),
          ...(address.postal_code ? { postal_code: address.postal_code } : {}),
        }
      : null,
    customer_tax_id: original.customerTaxId,
    is_business_customer: original.isBusinessCustomer,
    external_customer_id: original.externalCustomerId,
    customer_metadata: original.customerMetadata,
    subscription_id: subscription.id,
    recurrence_billing: 'manual',
    require_billing_address: original.requireBillingAddress,
    success_url: original.successUrl ?? undefined,
    cancel_url: original.cancelUrl ?? undefined,
    embed_origin: original.embedOrigin ?? undefined,
    metadata: {
      ...original.metadata,
      renewal_of_checkout_id: original.id,
      renewal_period_start: subscription.currentPeriodEnd.toISOString(),
    },
    no_fees_installments: original.noFeesInstallments,
    // The API caps a merchant's expiry at a day; the workflow's renewal checkout stays open until its deadline.
    ...(args.expiresAt ? { expires_in_minutes: renewalCheckoutExpiryMinutes(args.expiresAt, new Date()) } : {}),
  };
  try {
    const checkout = await createCheckout(deps, {
      actingOrganizationId: organizationId,
      allowSubOrganizations: false,
      input,
      discountPolicy: 'when_applicable',
      renewal: { period, balance: subscription.balanceAmount },
    });
    return { checkout, created: true };
  } catch (err) {
    // A concurrent call opened it first (the payable renewal of a period is unique): that one is the answer.
    const raced = err instanceof UniqueConstraintViolationException ? await payable() : null;
    if (raced) return { checkout: raced, created: false };
    throw err;
  }
}
