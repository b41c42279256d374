import type { InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import type { Discount } from '../../db/entities/index.ts';
import { iso, listQuery, metadata, nonBlank } from '../../use-cases/schemas/common.ts';

export type DiscountEntity = InferEntity<typeof Discount>;

const name = nonBlank(256);
/** What a buyer types at checkout: no spaces, compared case-insensitively. */
const code = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, "-" or "_"');
const timestamp = z.iso.datetime({ offset: true });
const productIds = z.array(z.uuid()).max(100);
const maxRedemptions = z.number().int().min(1).max(2_147_483_647);

/** Money-affecting terms are fixed at creation: a changed discount would make past sales unexplainable. */
const immutable = (field: string) =>
  z.never({ error: `${field} cannot be changed after creation; create a new discount instead` }).optional();

/** A field the chosen variant does not take: `{ not: {} }` in the document, a 400 naming it at runtime. */
const absent = (message: string) => z.never({ error: message }).optional();
/** A number whose absence is reported with `message` rather than zod's "expected number". */
const requiredNumber = (message: string) =>
  z.number({ error: (issue) => (issue.input === undefined ? message : undefined) });

const common = {
  name,
  code: code.nullable().optional(),
  starts_at: timestamp.nullable().optional(),
  ends_at: timestamp
    .nullable()
    .optional()
    .describe('after starts_at when both are given (422 `invalid_ends_at` otherwise)'),
  max_redemptions: maxRedemptions.nullable().optional(),
  product_ids: productIds.optional().describe('empty or absent: every product of the organization'),
  metadata: metadata.optional(),
};

/** The value of the discount: a percentage takes basis_points only, a fixed discount amount and currency only. */
const percentage = {
  type: z.literal('percentage'),
  basis_points: requiredNumber('required for a percentage discount')
    .int()
    .min(1)
    .max(10_000)
    .describe('1 = 0.01 %, 10000 = 100 %'),
  amount: absent('only for a fixed discount'),
  currency: absent('only for a fixed discount'),
};
const fixed = {
  type: z.literal('fixed'),
  amount: requiredNumber('required for a fixed discount')
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .describe('in cents'),
  currency: z
    .string({ error: (issue) => (issue.input === undefined ? 'required for a fixed discount' : undefined) })
    .regex(/^[a-z]{3}$/, 'must be a 3-letter lower-case ISO 4217 code'),
  basis_points: absent('only for a percentage discount'),
};

/** How long it applies to a subscription: duration_in_months with repeating only, and then required. */
const single = {
  duration: z.enum(['once', 'forever']).default('once'),
  duration_in_months: absent('only when duration is repeating'),
};
const repeating = {
  duration: z.literal('repeating'),
  duration_in_months: requiredNumber('required when duration is repeating').int().min(1).max(1200),
};

/**
 * The cross-field rules are the document's own: one variant per type (percentage, fixed) and
 * duration (once or forever, repeating), so a client and the fuzzer see which fields go together and
 * a body that mixes them breaks the schema (400). Only ends_at after starts_at is left to the route (422).
 */
export const createDiscountBody = z.discriminatedUnion('type', [
  z.discriminatedUnion('duration', [
    z.strictObject({ ...common, ...percentage, ...single }),
    z.strictObject({ ...common, ...percentage, ...repeating }),
  ]),
  z.discriminatedUnion('duration', [
    z.strictObject({ ...common, ...fixed, ...single }),
    z.strictObject({ ...common, ...fixed, ...repeating }),
  ]),
]);
export type CreateDiscountBody = z.infer<typeof createDiscountBody>;

/** Absent: untouched; null clears a nullable field. The terms of the discount itself are immutable. */
export const updateDiscountBody = z.strictObject({
  name: name.optional(),
  code: code.nullable().optional(),
  ends_at: timestamp.nullable().optional(),
  max_redemptions: maxRedemptions.nullable().optional(),
  product_ids: productIds.optional(),
  metadata: metadata.optional(),
  type: immutable('type'),
  basis_points: immutable('basis_points'),
  amount: immutable('amount'),
  currency: immutable('currency'),
  duration: immutable('duration'),
  duration_in_months: immutable('duration_in_months'),
  starts_at: immutable('starts_at'),
});
export type UpdateDiscountBody = z.infer<typeof updateDiscountBody>;

export const discountParams = z.object({ id: z.string().max(64) });

export const listDiscountsQuery = listQuery(['created_at', 'name']).extend({
  query: z.string().max(256).optional().describe('part of the name or code, case-insensitive'),
  code: z.string().max(64).optional().describe('exact code, case-insensitive'),
});

export const discountSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  code: z.string().nullable(),
  type: z.enum(['percentage', 'fixed']),
  basis_points: z.number().int().nullable(),
  amount: z.number().int().nullable(),
  currency: z.string().nullable(),
  duration: z.enum(['once', 'forever', 'repeating']),
  duration_in_months: z.number().int().nullable(),
  starts_at: z.string().nullable(),
  ends_at: z.string().nullable(),
  max_redemptions: z.number().int().nullable(),
  redemptions_count: z.number().int(),
  product_ids: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  modified_at: z.string().nullable(),
});
export type DiscountRecord = z.infer<typeof discountSchema>;

export function discountRecord(d: DiscountEntity): DiscountRecord {
  return {
    id: d.id,
    organization_id: d.organizationId,
    name: d.name,
    code: d.code ?? null,
    type: d.type,
    basis_points: d.basisPoints ?? null,
    amount: d.amount == null ? null : Number(d.amount),
    currency: d.currency ?? null,
    duration: d.duration,
    duration_in_months: d.durationInMonths ?? null,
    starts_at: iso(d.startsAt),
    ends_at: iso(d.endsAt),
    max_redemptions: d.maxRedemptions ?? null,
    redemptions_count: d.redemptionsCount,
    product_ids: [...d.productIds],
    metadata: d.metadata,
    created_at: iso(d.createdAt)!,
    modified_at: iso(d.modifiedAt),
  };
}

/** The stored discount as the pure rules of domain/discounts.ts see it. */
export { discountRule } from '../../domain/discounts.ts';
