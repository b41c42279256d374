import type { EntityManager } from '@mikro-orm/postgresql';
import { findCheckoutLink } from '../db/catalog/checkout-links.ts';
import { findDiscount, type DiscountRow } from '../db/catalog/discounts.ts';
import { findOwnCheckout } from '../db/checkout/own-checkouts.ts';
import { findCustomerByKey } from '../db/customer/customers.ts';
import { findOwnSubscription } from '../db/subscription/rows.ts';
import { SUBSCRIPTION_EXISTS } from '../domain/checkout.ts';
import { parseTaxId } from '../domain/tax-id.ts';
import { notFound, unprocessable } from './errors.ts';
import type { CheckoutEntity } from './schemas/checkouts.ts';
import { isUuid } from './schemas/common.ts';

/*
 * What a checkout request names (a discount, a customer, a subscription, a link, a tax id, the checkout
 * itself), each found in the organization or refused with the API's error.
 */

export async function discountOf(em: EntityManager, id: string, organizationId: string): Promise<DiscountRow> {
  const discount = await findDiscount(em, organizationId, id);
  if (!discount) throw unprocessable('discount_not_found', 'Discount not found', `discount_id ${id}`);
  return discount;
}

export async function customerOf(em: EntityManager, id: string, organizationId: string): Promise<void> {
  const customer = await findCustomerByKey(em, organizationId, { id });
  if (!customer) throw unprocessable('customer_not_found', 'Customer not found', `customer_id ${id}`);
}

export async function subscriptionOf(em: EntityManager, id: string, organizationId: string): Promise<void> {
  const subscription = await findOwnSubscription(em, { organizationId }, id);
  if (!subscription) throw unprocessable('subscription_not_found', 'Subscription not found', `subscription_id ${id}`);
}

/** The 422 of a checkout whose customer already has a live subscription (allow_multiple_subscriptions false). */
export const subscriptionExists = () =>
  unprocessable(
    SUBSCRIPTION_EXISTS,
    'The customer already has a subscription',
    'The organization allows one live subscription per customer: change its plan instead',
  );

export async function linkOf(em: EntityManager, id: string, organizationId: string): Promise<void> {
  const link = await findCheckoutLink(em, organizationId, id);
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
  const checkout = isUuid(id) ? await findOwnCheckout(em, organizationId, id, forUpdate) : null;
  if (!checkout) throw notFound('Checkout');
  return checkout;
}
