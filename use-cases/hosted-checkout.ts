import type { EntityManager } from '@mikro-orm/postgresql';
import { linkCheckoutStatus } from '../db/checkout/page-reads.ts';
import type { CheckoutLinkRow } from '../db/catalog/checkout-links.ts';
import { unarchivedCheckoutLink } from '../db/catalog/hosted-checkout-reads.ts';
import { priceOrFail, productOrFail } from '../db/catalog/products.ts';
import { sellerOf } from '../db/organization/hosted-checkout-reads.ts';
import { createCheckout, type CheckoutDeps } from './checkout-creation.ts';
import { unprocessable } from './errors.ts';
import type { CheckoutEntity } from './schemas/checkouts.ts';
import { isUuid } from './schemas/common.ts';

/**
 * What the hosted checkout's link page reads and does (pages/checkout/routes.ts): the link, what it
 * sells, the checkout it opens through the API's own checkout creation, and the one a browser already has.
 */

export type CheckoutLinkEntity = CheckoutLinkRow;

/** The checkout link a URL names, while it sells something and is not archived; null otherwise. */
export async function openCheckoutLink(em: EntityManager, id: string): Promise<CheckoutLinkEntity | null> {
  const link = isUuid(id) ? await unarchivedCheckoutLink(em, id) : null;
  return link && link.productIds.length > 0 ? link : null;
}

/** What the link's page shows: each of its products at that product's default price, in the link's order, and the seller. */
export async function checkoutLinkOffer(em: EntityManager, link: CheckoutLinkEntity) {
  const [offers, organization] = await Promise.all([
    Promise.all(
      link.productIds.map(async (id) => {
        const product = await productOrFail(em, id);
        return { product, price: await priceOrFail(em, product.defaultPriceId!) };
      }),
    ),
    sellerOf(em, link.organizationId),
  ]);
  return { offers, organization };
}

/** The product of the link the buyer chose; the link's first when the choice is none of its own. */
export const chosenLinkProduct = (link: CheckoutLinkEntity, productId: string | undefined): string =>
  productId && link.productIds.includes(productId.toLowerCase()) ? productId.toLowerCase() : link.productIds[0]!;

/**
 * The product an integration asked for by `?product_id=` (the link's JSON answer): the link's first when
 * none is asked, one of the link's own, or a 422 (a browser's choice falls back instead: chosenLinkProduct).
 */
export function requestedLinkProduct(link: CheckoutLinkEntity, productId: string | undefined): string {
  if (productId !== undefined && !link.productIds.includes(productId.toLowerCase())) {
    throw unprocessable(
      'product_not_in_link',
      'The product is not one of the checkout link',
      `product_id ${productId}`,
    );
  }
  return chosenLinkProduct(link, productId);
}

/**
 * The checkout a link opens for a buyer, as the API's checkout creation makes it: it charges the
 * product the buyer chose (the link's first by default) and offers all of the link's.
 */
export function openLinkCheckout(
  deps: CheckoutDeps,
  link: CheckoutLinkEntity,
  productId?: string,
): Promise<CheckoutEntity> {
  return createCheckout(deps, {
    actingOrganizationId: link.organizationId,
    allowSubOrganizations: false,
    // A promotion that has ended does not break the link: the buyer gets the full price.
    discountPolicy: 'when_applicable',
    input: {
      payment_processor: 'gateway',
      product_id: chosenLinkProduct(link, productId),
      products: [...link.productIds],
      discount_id: link.discountId ?? undefined,
      allow_discount_codes: link.allowDiscountCodes,
      quantity: 1,
      recurrence_billing: 'gateway',
      require_billing_address: false,
      no_fees_installments: false,
      success_url: link.successUrl ?? undefined,
      cancel_url: link.cancelUrl ?? undefined,
      metadata: link.metadata,
      checkout_link_id: link.id,
    },
  });
}

/**
 * The product of the link's checkout with this client secret while it can still be paid (so reloading
 * the link reuses it); null when it cannot.
 */
export async function linkCheckoutPayable(
  em: EntityManager,
  clientSecret: string,
  linkId: string,
): Promise<string | null> {
  const checkout = await linkCheckoutStatus(em, clientSecret, linkId);
  return checkout && (checkout.status === 'open' || checkout.status === 'confirmed') ? checkout.productId : null;
}
