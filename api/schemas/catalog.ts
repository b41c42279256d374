import type { InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import type { ListedMedia, ListedPrice, Price, Product } from '../../db/entities/index.ts';
import { MAX_INTERVAL_COUNT, MAX_UNIT_AMOUNT } from '../../domain/price-rules.ts';
import { iso, listQuery, booleanQuery, metadata, paginated, uuid, nonBlank } from '../../use-cases/schemas/common.ts';
import { mediaFileSchema, type MediaFileRecord } from './files.ts';

/**
 * Wire shapes of the catalog: the Product and Price resources of the spec, the bodies that create and
 * change them, and the presenters that turn entities into those shapes (the only place that does).
 *
 * Request schemas check types only; the price rules (currency format, amount bounds, interval when
 * recurring, no free recurring price) live in domain/price-rules.ts, so every error they produce names
 * the offending field the same way for inline prices and for create-price.
 */

export type ProductEntity = InferEntity<typeof Product>;
export type PriceEntity = InferEntity<typeof Price>;

/** What the presenters read: an entity, or the same fields straight from a row. */
type PriceFields = Pick<
  PriceEntity,
  | 'id'
  | 'productId'
  | 'name'
  | 'type'
  | 'currency'
  | 'unitAmount'
  | 'interval'
  | 'intervalCount'
  | 'taxBehavior'
  | 'active'
  | 'metadata'
  | 'gatewayRecurrencePlanId'
  | 'createdAt'
  | 'modifiedAt'
  | 'deletedAt'
>;
type ProductFields = Pick<
  ProductEntity,
  | 'id'
  | 'organizationId'
  | 'name'
  | 'description'
  | 'metadata'
  | 'isArchived'
  | 'isTaxApplicable'
  | 'defaultPriceId'
  | 'createdAt'
  | 'modifiedAt'
>;

export const PRICE_TYPES = ['one_time', 'recurring'] as const;
export const PRICE_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export const TAX_BEHAVIORS = ['unspecified', 'inclusive', 'exclusive'] as const;

const timestamp = z.string().meta({ description: 'ISO 8601 UTC', example: '2025-01-31T12:00:00.000Z' });

/**
 * The price and the product are named components of /openapi.json (`Price`, `Product`): the records
 * events carry are named in one place, api/plugins/openapi-webhooks.ts (RECORD_SCHEMAS).
 */
export const priceSchema = z.object({
  id: z.string(),
  product_id: z.string(),
  name: z.string().nullable().meta({ description: 'Descriptive label with no billing effect' }),
  type: z.enum(PRICE_TYPES),
  currency: z.string().meta({ description: 'Lower-case ISO 4217', example: 'brl' }),
  unit_amount: z.number().int().meta({ description: 'Minor units (cents)', example: 4990 }),
  interval: z.enum(PRICE_INTERVALS).nullable(),
  interval_count: z.number().int().nullable(),
  tax_behavior: z.enum(TAX_BEHAVIORS).nullable(),
  active: z.boolean().meta({ description: 'false means archived: kept, but not used in new checkouts' }),
  metadata: z.record(z.string(), z.unknown()),
  gateway_recurrence_plan_id: z.string().nullable(),
  created_at: timestamp,
  modified_at: timestamp.nullable(),
  deleted_at: timestamp.nullable(),
});

export const productSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  description: z.string().nullable().meta({ description: 'Markdown' }),
  metadata: z.record(z.string(), z.unknown()),
  is_archived: z.boolean(),
  is_tax_applicable: z.boolean(),
  default_price_id: z.string().nullable(),
  prices: z.array(priceSchema),
  medias: z.array(mediaFileSchema).meta({ description: 'Image files shown with the product, in order' }),
  created_at: timestamp,
  modified_at: timestamp.nullable(),
});

export type PriceBody = z.infer<typeof priceSchema>;
export type ProductBody = z.infer<typeof productSchema>;

/** The price fields a merchant sets; shared by inline prices, add_prices and create-price. */
const priceFields = {
  name: z.string().min(1).max(256).optional(),
  currency: z.string().meta({ description: '3 lower-case letters (ISO 4217)', example: 'brl', pattern: '^[a-z]{3}$' }),
  unit_amount: z.number().meta({
    description: `Minor units, 0 to ${MAX_UNIT_AMOUNT}. 0 is valid only for one_time prices`,
    example: 4990,
    type: 'integer',
    minimum: 0,
    maximum: MAX_UNIT_AMOUNT,
  }),
  type: z.enum(PRICE_TYPES).optional().meta({ description: 'Default one_time' }),
  interval: z.enum(PRICE_INTERVALS).nullable().optional().meta({ description: 'Required when recurring' }),
  interval_count: z
    .number()
    .nullable()
    .optional()
    .meta({
      description: `1 to ${MAX_INTERVAL_COUNT}; default 1 when recurring, only allowed when recurring`,
      type: 'integer',
      minimum: 1,
      maximum: MAX_INTERVAL_COUNT,
    }),
  tax_behavior: z.enum(TAX_BEHAVIORS).nullable().optional().meta({ description: 'Default unspecified' }),
  metadata: metadata.optional(),
};

/**
 * The price rules across fields (domain/price-rules.ts checks them), stated for the document: a
 * recurring price names its interval and costs something; a one-time price names no interval.
 */
export const PRICE_RULES = {
  if: { properties: { type: { const: 'recurring' } }, required: ['type'] },
  then: { required: ['interval'], properties: { interval: { type: 'string' }, unit_amount: { minimum: 1 } } },
  else: { properties: { interval: { type: 'null' }, interval_count: { type: 'null' } } },
};

export const inlinePriceBody = z.strictObject(priceFields).meta(PRICE_RULES);
export type InlinePrice = z.infer<typeof inlinePriceBody>;

const productName = nonBlank(256);
/** At most this many media per product. */
const MAX_PRODUCT_MEDIAS = 20;
const mediaIds = z
  .array(uuid)
  .max(MAX_PRODUCT_MEDIAS)
  .meta({ description: "Ids of the organization's image files (POST /api/v1/files/), in display order" });
const productDescription = z.string().max(20_000).meta({ description: 'Markdown' });

export const createProductBody = z.strictObject({
  organization_id: uuid,
  name: productName,
  description: productDescription.nullable().optional(),
  metadata: metadata.optional(),
  is_tax_applicable: z.boolean().default(true),
  prices: z.array(inlinePriceBody).min(1, 'a product needs at least one price').max(100),
  default_price_index: z.number().int().min(0).default(0).meta({ description: '0-based index into prices' }),
  medias: mediaIds.optional(),
});

export const updateProductBody = z.strictObject({
  name: productName.optional(),
  description: productDescription.nullable().optional(),
  metadata: metadata.optional().meta({ description: 'Replaces the whole metadata object' }),
  is_tax_applicable: z.boolean().optional(),
  default_price_id: uuid.optional().meta({ description: 'An active price of this product' }),
  is_archived: z.boolean().optional(),
  add_prices: z.array(inlinePriceBody).max(100).optional().meta({ description: 'New prices (prices are immutable)' }),
  archive_price_ids: z
    .array(uuid)
    .max(100)
    .optional()
    .meta({ description: 'Prices to archive (active becomes false)' }),
  medias: mediaIds.optional().meta({ description: 'Replaces the whole media list; [] removes every media' }),
});

export const listProductsQuery = listQuery(['created_at', 'name']).extend({
  is_archived: booleanQuery.optional(),
  query: z.string().max(256).optional().meta({ description: 'Case-insensitive substring of the name' }),
  organization_id: uuid.optional().meta({ description: "Default: the credential's organization" }),
});

export const productPage = paginated(productSchema);

export const productParams = z.object({ id: z.string().max(64) });

export const createPriceBody = z
  .strictObject({
    product_id: uuid,
    ...priceFields,
    active: z.boolean().default(true),
    set_as_default: z
      .boolean()
      .default(false)
      .meta({ description: "When true, the product's default_price_id points to this price" }),
  })
  .meta(PRICE_RULES);

export function presentPrice(price: PriceFields): PriceBody {
  return {
    id: price.id,
    product_id: price.productId,
    name: price.name ?? null,
    type: price.type,
    currency: price.currency,
    unit_amount: Number(price.unitAmount),
    interval: price.interval ?? null,
    interval_count: price.intervalCount ?? null,
    tax_behavior: price.taxBehavior ?? null,
    active: price.active,
    metadata: price.metadata,
    gateway_recurrence_plan_id: price.gatewayRecurrencePlanId ?? null,
    created_at: iso(price.createdAt)!,
    modified_at: iso(price.modifiedAt),
    deleted_at: iso(price.deletedAt),
  };
}

export function presentProduct(
  product: ProductFields,
  prices: readonly PriceFields[],
  medias: readonly MediaFileRecord[],
): ProductBody {
  return {
    id: product.id,
    organization_id: product.organizationId,
    name: product.name,
    description: product.description ?? null,
    metadata: product.metadata,
    is_archived: product.isArchived,
    is_tax_applicable: product.isTaxApplicable,
    default_price_id: product.defaultPriceId ?? null,
    prices: prices.map(presentPrice),
    medias: [...medias],
    created_at: iso(product.createdAt)!,
    modified_at: iso(product.modifiedAt),
  };
}

/** A product as the catalog's hot read returns it: its fields, and its prices and media as the product keeps them. */
export type ListedProduct = ProductFields & { priceList: readonly ListedPrice[]; mediaList: readonly ListedMedia[] };

/** GET /products/<id>'s answer from the product's row (db/catalog/products.ts `productWithLists`). */
export function presentListedProduct(product: ListedProduct): ProductBody {
  const date = (v: string | null) => (v == null ? null : new Date(v));
  const prices = product.priceList.map((pr): PriceFields => ({
    id: pr.id,
    productId: pr.product_id,
    name: pr.name,
    type: pr.type,
    currency: pr.currency,
    unitAmount: Number(pr.unit_amount),
    interval: pr.interval,
    intervalCount: pr.interval_count,
    taxBehavior: pr.tax_behavior,
    active: pr.active,
    metadata: pr.metadata,
    gatewayRecurrencePlanId: pr.gateway_recurrence_plan_id,
    createdAt: new Date(pr.created_at),
    modifiedAt: date(pr.modified_at),
    deletedAt: date(pr.deleted_at),
  }));
  return presentProduct(product, prices, product.mediaList);
}
