import { defineEntity, p } from '@mikro-orm/core';

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
