import type { EntityManager } from '@mikro-orm/postgresql';
import { productNames } from '../catalog/labels.ts';
import { checkoutOwnerOf } from '../customer/checkout-reads.ts';
import { kyselyOf } from '../kysely.ts';
import { sellerOf } from '../organization/hosted-checkout-reads.ts';

/**
 * What a checkout's charge tells the gateway of the sale beside its amount (decision 0069): the
 * seller's name (the card statement's), the product sold, and the buyer's IP address the merchant
 * gave when creating the checkout. Undefined for an unknown checkout.
 */
export async function checkoutSaleDetails(em: EntityManager, checkoutId: string) {
  const checkout = await kyselyOf(em)
    .selectFrom('checkouts')
    .select(['organizationId', 'productId', 'customerIpAddress'])
    .where('id', '=', checkoutId)
    .executeTakeFirst();
  if (!checkout) return undefined;
  const [names, seller] = await Promise.all([
    productNames(em, [checkout.productId]),
    sellerOf(em, checkout.organizationId),
  ]);
  return {
    sellerName: seller.name,
    productId: checkout.productId,
    productName: names.get(checkout.productId) ?? null,
    customerIpAddress: checkout.customerIpAddress ?? null,
  };
}

/**
 * Who pays a checkout's card charge, as the gateway's payment names them (decision 0074): the buyer's
 * fields the confirmation wrote on the checkout, else its customer's e-mail and name. Undefined for an
 * unknown checkout.
 */
export async function checkoutPayer(em: EntityManager, checkoutId: string) {
  const checkout = await kyselyOf(em)
    .selectFrom('checkouts')
    .select(['customerId', 'customerEmail', 'customerName', 'customerTaxId'])
    .where('id', '=', checkoutId)
    .executeTakeFirst();
  if (!checkout) return undefined;
  const owner = checkout.customerId ? await checkoutOwnerOf(em, checkout.customerId) : undefined;
  return {
    email: checkout.customerEmail ?? owner?.ownerEmail ?? null,
    name: checkout.customerName ?? owner?.ownerName ?? null,
    taxId: checkout.customerTaxId ?? null,
  };
}
