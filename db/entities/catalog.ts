import { defineEntity, p } from '@mikro-orm/core';

/**
 * A price as a product's `price_list` keeps it: the prices row as PostgreSQL's `json_agg` writes it
 * (column names; timestamps as ISO text), kept by triggers (db/migrations/0028-product-lists.ts).
 */
export interface ListedPrice {
  id: string;
  product_id: string;
  organization_id: string;
  name: string | null;
  type: 'one_time' | 'recurring';
  currency: string;
  unit_amount: number;
  interval: 'day' | 'week' | 'month' | 'year' | null;
  interval_count: number | null;
  tax_behavior: 'unspecified' | 'inclusive' | 'exclusive' | null;
  active: boolean;
  metadata: Record<string, unknown>;
  gateway_recurrence_plan_id: string | null;
  created_at: string;
  modified_at: string | null;
  deleted_at: string | null;
}

/** A media file as a product's `media_list` keeps it, in the product's order. */
export interface ListedMedia {
  id: string;
  name: string;
  mime_type: string;
  size: number;
  checksum_sha256: string;
}

export const Product = defineEntity({
  name: 'Product',
  tableName: 'products',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    name: p.string(),
    description: p.text().nullable(),
    metadata: p.json<Record<string, unknown>>(),
    isArchived: p.boolean(),
    isTaxApplicable: p.boolean(),
    defaultPriceId: p.uuid().nullable(),
    createdAt: p.datetime(),
    modifiedAt: p.datetime().nullable(),
    /** Kept by triggers (never written here) for GET /products/<id>; lazy, so no other read carries them. */
    priceList: p.json<ListedPrice[]>().lazy().defaultRaw("'[]'"),
    mediaList: p.json<ListedMedia[]>().lazy().defaultRaw("'[]'"),
  },
});

/** Immutable after creation except for `active` (archive) and the gateway plan id filled in later. */
export const Price = defineEntity({
  name: 'Price',
  tableName: 'prices',
  properties: {
    id: p.uuid().primary(),
    productId: p.uuid(),
    organizationId: p.uuid(),
    name: p.string().nullable(),
    type: p.enum(['one_time', 'recurring'] as const),
    currency: p.string(),
    unitAmount: p.bigint('number'),
    interval: p.enum(['day', 'week', 'month', 'year'] as const).nullable(),
    intervalCount: p.integer().nullable(),
    taxBehavior: p.enum(['unspecified', 'inclusive', 'exclusive'] as const).nullable(),
    active: p.boolean(),
    metadata: p.json<Record<string, unknown>>(),
    gatewayRecurrencePlanId: p.string().nullable(),
    createdAt: p.datetime(),
    modifiedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
});

/** A file a product shows, at its position; the file's organization is the product's (a foreign key says so). */
export const ProductMedia = defineEntity({
  name: 'ProductMedia',
  tableName: 'product_medias',
  properties: {
    productId: p.uuid().primary(),
    fileId: p.uuid().primary(),
    organizationId: p.uuid(),
    position: p.smallint(),
  },
});
