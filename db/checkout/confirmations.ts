import type { EntityManager } from '@mikro-orm/postgresql';
import { checkoutPriceTerms } from '../catalog/checkout-reads.ts';
import { checkoutOwnerOf } from '../customer/checkout-reads.ts';
import { kyselyOf } from '../kysely.ts';
import { lockCheckout } from './records.ts';

/**
 * The checkout as a confirmation reads it: its row, locked until the transaction ends, with its
 * price's terms (read from the catalog in the same transaction; undefined, as for an unknown checkout,
 * should the price be missing).
 */
export async function lockCheckoutForConfirmation(em: EntityManager, checkoutId: string) {
  const checkout = await lockCheckout(em, checkoutId);
  if (!checkout) return undefined;
  const terms = await checkoutPriceTerms(em, checkout.productPriceId);
  return terms && { ...checkout, ...terms };
}

export type ConfirmingCheckout = NonNullable<Awaited<ReturnType<typeof lockCheckoutForConfirmation>>>;

/**
 * What a confirmation request checks before its Update: the checkout's status and buyer, its
 * customer's e-mail and name, and its price's kind (the buyer's hot path: the checkout, then its
 * price and customer from their owners at once).
 */
export async function confirmableCheckoutRow(
  em: EntityManager,
  by: { clientSecret: string } | { id: string; organizationId: string },
) {
  const query = kyselyOf(em).selectFrom('checkouts').select([
    'id',
    'organizationId',
    // A renewal checkout's subscription, whose kept card the buyer may pay with (decision 0078).
    'subscriptionId',
    'status',
    'amount',
    'customerId',
    'customerEmail',
    'customerName',
    'customerTaxId',
    'productPriceId',
    'noFeesInstallments',
    'paymentMethod',
    'requireBillingAddress',
    // Whether there is one, and for a boleto whether it is full (postal code, state).
    'customerBillingAddress',
    // A Pix Automático checkout is paid with pix, by a debtor with name and tax id (decision 0096);
    // a buyer may choose it where the checkout has no trial (the opt-in).
    'recurrenceBilling',
    'trialInterval',
  ]);
  const checkout = await (
    'clientSecret' in by
      ? query.where('clientSecret', '=', by.clientSecret)
      : query.where('id', '=', by.id).where('organizationId', '=', by.organizationId)
  ).executeTakeFirst();
  if (!checkout) return undefined;
  const { productPriceId, trialInterval, ...row } = checkout;
  const [terms, owner] = await Promise.all([
    checkoutPriceTerms(em, productPriceId),
    row.customerId ? checkoutOwnerOf(em, row.customerId) : undefined,
  ]);
  if (!terms) return undefined;
  return {
    ...row,
    ownerEmail: owner?.ownerEmail ?? null,
    ownerName: owner?.ownerName ?? null,
    priceId: productPriceId,
    priceType: terms.priceType,
    priceInterval: terms.priceInterval,
    priceIntervalCount: terms.priceIntervalCount,
    hasTrial: trialInterval !== null,
  };
}
