import type { InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import type { CheckoutLink } from '../../db/entities/index.ts';
import { MAX_PAGE_LIMIT } from '../../domain/pagination.ts';
import { booleanQuery, iso, metadata, nonBlank } from '../../use-cases/schemas/common.ts';

export type CheckoutLinkEntity = InferEntity<typeof CheckoutLink>;

/** The spec's own default for this list: 100, not the usual 10. */
export const CHECKOUT_LINK_PAGE_LIMIT = 100;

const label = nonBlank(256);
const url = z.url({ protocol: /^https?$/ }).max(2048);
const productIds = z.array(z.uuid()).min(1).max(100);

export const createCheckoutLinkBody = z.strictObject({
  label: label.nullable().optional(),
  product_ids: productIds.describe('products of the organization, not archived, each with an active default price'),
  discount_id: z.uuid().nullable().optional(),
  allow_discount_codes: z.boolean().default(true),
  success_url: url.nullable().optional(),
  cancel_url: url.nullable().optional(),
  metadata: metadata.optional(),
});
export type CreateCheckoutLinkBody = z.infer<typeof createCheckoutLinkBody>;

/** Absent: untouched; null clears a nullable field. */
export const updateCheckoutLinkBody = z.strictObject({
  label: label.nullable().optional(),
  product_ids: productIds.optional(),
  discount_id: z.uuid().nullable().optional(),
  allow_discount_codes: z.boolean().optional(),
  success_url: url.nullable().optional(),
  cancel_url: url.nullable().optional(),
  metadata: metadata.optional(),
  is_archived: z.boolean().optional(),
});
export type UpdateCheckoutLinkBody = z.infer<typeof updateCheckoutLinkBody>;

export const checkoutLinkParams = z.object({ id: z.string().max(64) });

/** The spec's parameters for this list (page/limit, sort_by/sort_order), not the `sorting` convention. */
export const listCheckoutLinksQuery = z.object({
  organization_id: z.uuid().optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(CHECKOUT_LINK_PAGE_LIMIT),
  sort_by: z.enum(['created_at', 'modified_at']).default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
  product_id: z.uuid().optional(),
  is_archived: booleanQuery.optional().describe('true: archived links only; false or absent: links in use'),
});

export const checkoutLinkSchema = z.object({
  id: z.string(),
  label: z.string().nullable(),
  url: z.string(),
  product_ids: z.array(z.string()),
  discount_id: z.string().nullable(),
  success_url: z.string().nullable(),
  cancel_url: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
  organization_id: z.string(),
  allow_discount_codes: z.boolean(),
  is_archived: z.boolean(),
});
export type CheckoutLinkRecord = z.infer<typeof checkoutLinkSchema>;

/** `url` is where a buyer opens the link: `{checkout_link_base}/<id>`. */
export function checkoutLinkRecord(link: CheckoutLinkEntity, checkoutLinkBase: string): CheckoutLinkRecord {
  return {
    id: link.id,
    label: link.label ?? null,
    url: `${checkoutLinkBase.replace(/\/+$/, '')}/${link.id}`,
    product_ids: [...link.productIds],
    discount_id: link.discountId ?? null,
    success_url: link.successUrl ?? null,
    cancel_url: link.cancelUrl ?? null,
    metadata: link.metadata,
    created_at: iso(link.createdAt)!,
    updated_at: iso(link.updatedAt)!,
    organization_id: link.organizationId,
    allow_discount_codes: link.allowDiscountCodes,
    is_archived: link.isArchived,
  };
}
