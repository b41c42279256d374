import type { EntityManager } from '@mikro-orm/postgresql';
import { livePrice, organizationProducts, productById } from '../db/catalog/checkout-creation-reads.ts';
import type { PriceRow, ProductRow } from '../db/catalog/products.ts';
import { isChildOf } from '../db/organization/organizations.ts';
import { offerRefusal, type CheckoutRefusal } from '../domain/checkout-eligibility.ts';
import { notFound, unprocessable } from './errors.ts';
import type { CreateCheckoutInput } from './schemas/checkouts.ts';

/**
 * What a new checkout sells (use-cases/checkout-creation.ts): the product it charges at which price,
 * and the products it offers, each one the asking organization may sell and still on offer.
 */

export type ProductEntity = ProductRow;
export type PriceEntity = PriceRow;

/** Who asks for which product: the part of a `CreateCheckoutRequest` these lookups read. */
export interface ProductRequest {
  actingOrganizationId: string;
  allowSubOrganizations: boolean;
  input: Pick<CreateCheckoutInput, 'product_id' | 'product_price_id' | 'products'>;
  /** A renewal's price still renews after being archived for new buyers. */
  renewal?: unknown;
}

/**
 * The charged product and its price. product_price_id names the price (and, without product_id, the
 * product); otherwise the product's default price. Products of another organization are 404, except a
 * direct sub-organization's for an OAT of its parent.
 */
export async function chargedProductAndPrice(
  em: EntityManager,
  request: ProductRequest,
): Promise<{ product: ProductEntity; price: PriceEntity }> {
  const { input } = request;
  let price: PriceEntity | null = null;
  if (input.product_price_id) {
    price = await livePrice(em, input.product_price_id);
    if (!price || !(await mayUse(em, request, price.organizationId))) throw notFound('Price');
  }
  const productId = input.product_id ?? price?.productId ?? input.products![0]!;
  const product = await productById(em, productId);
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
    price = await livePrice(em, product.defaultPriceId);
    if (!price) throw unprocessable('no_default_price', 'The product has no default price', `product ${product.id}`);
  }
  refuse(offerRefusal(product, price, Boolean(request.renewal)));
  return { product, price };
}

/** A rule of domain/checkout-eligibility.ts refused the checkout: a 422. */
export function refuse(refusal: CheckoutRefusal | null): void {
  if (refusal) throw unprocessable(refusal.code, refusal.message, refusal.detail);
}

async function mayUse(em: EntityManager, request: ProductRequest, organizationId: string): Promise<boolean> {
  if (organizationId === request.actingOrganizationId) return true;
  if (!request.allowSubOrganizations) return false;
  return isChildOf(em, organizationId, request.actingOrganizationId);
}

/** The products offered, charged product first; all of the checkout's organization and not archived. */
export async function offeredProducts(
  em: EntityManager,
  charged: ProductEntity,
  listed: readonly string[],
): Promise<string[]> {
  const ids = [...new Set([charged.id, ...listed])];
  if (ids.length === 1) return ids;
  const found = await organizationProducts(em, charged.organizationId, ids);
  const byId = new Map(found.map((p) => [p.id, p]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw notFound('Product');
  const archived = ids.filter((id) => byId.get(id)!.isArchived);
  if (archived.length > 0) {
    throw unprocessable('product_archived', 'The product is archived', `products: ${archived.join(', ')}`);
  }
  return ids;
}
