import { z } from 'zod';
import type { BillingAddress } from '../../db/entities/customer.ts';
import type { TaxId } from '../../domain/tax-id.ts';
import { emailAddress, iso, listQuery, metadata, TAX_ID_FORMAT, nonBlank } from './common.ts';

const text = nonBlank(256);
/** Kept exactly as sent: it is the merchant's own key and is looked up verbatim. */
const externalId = z.string().min(1).max(256);

/** line1, city and country are what an invoice needs everywhere; state and postal_code do not exist in every country. */
export const billingAddressInput = z.strictObject({
  line1: text,
  city: text,
  state: text.optional(),
  postal_code: nonBlank(32).optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO 3166-1 country code')
    .toUpperCase(),
});

/**
 * CPF or CNPJ, as `{ type?, number }` (the spec's update body) or as a bare string. The check digits,
 * and a type that agrees with them, are checked by the route: a well-formed value that breaks them is
 * a 422 `invalid_tax_id` (the formats below state the rule; JSON Schema does not enforce a format).
 */
export const taxIdInput = z.union([
  z.string().max(32).meta(TAX_ID_FORMAT),
  z.strictObject({ type: z.enum(['cpf', 'cnpj']).optional(), number: z.string().max(32) }).meta({
    description:
      'A CPF or CNPJ; when type is given, the number is of that kind (422 `invalid_tax_id` when the check digits ' +
      'or the kind do not match)',
    anyOf: [
      { not: { required: ['type'] }, properties: { number: { format: 'cpf-cnpj' } } },
      { required: ['type'], properties: { type: { const: 'cpf' }, number: { format: 'cpf' } } },
      { required: ['type'], properties: { type: { const: 'cnpj' }, number: { format: 'cnpj' } } },
    ],
  }),
]);

const email = emailAddress().toLowerCase();

/** A null value in user_metadata removes that key (on create it is simply not stored). */
const userMetadata = metadata;

export const createCustomerBody = z.strictObject({
  email,
  name: text.nullable().optional(),
  external_id: externalId.nullable().optional(),
  billing_name: text.nullable().optional(),
  billing_address: billingAddressInput.nullable().optional(),
  tax_id: taxIdInput.nullable().optional(),
  user_metadata: userMetadata.optional(),
  email_verified: z.boolean().optional(),
});
export type CreateCustomerBody = z.infer<typeof createCustomerBody>;

/**
 * The spec's update table plus email. An absent field is left alone; null clears a nullable field.
 * Unknown fields (external_id included) are a 400 rather than a silent no-op.
 */
export const updateCustomerBody = z.strictObject({
  email: email.optional(),
  name: text.nullable().optional(),
  billing_name: text.nullable().optional(),
  billing_address: billingAddressInput.nullable().optional(),
  tax_id: taxIdInput.nullable().optional(),
  user_metadata: userMetadata.optional(),
  email_verified: z.boolean().optional(),
});
export type UpdateCustomerBody = z.infer<typeof updateCustomerBody>;

export const customerIdParams = z.object({ id: z.string().max(64) });
export const externalIdParams = z.object({ external_id: externalId });

export const listCustomersQuery = listQuery(['created_at', 'email', 'name']).extend({
  email: z.string().max(320).optional(),
  external_id: z.string().max(256).optional(),
  query: z.string().max(256).optional(),
});

export const billingAddressSchema = z.object({
  line1: z.string(),
  city: z.string(),
  state: z.string().nullable(),
  postal_code: z.string().nullable(),
  country: z.string(),
});

export const customerSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  external_id: z.string().nullable(),
  billing_name: z.string().nullable(),
  billing_address: billingAddressSchema.nullable(),
  tax_id: z.object({ type: z.enum(['cpf', 'cnpj']), number: z.string() }).nullable(),
  user_metadata: z.record(z.string(), z.unknown()),
  email_verified: z.boolean(),
  avatar_url: z.string().nullable(),
  organization_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CustomerRecord = z.infer<typeof customerSchema>;

/** The columns of a customer row that the Core API shows. */
export interface CustomerRow {
  id: string;
  organizationId: string;
  email: string;
  name?: string | null;
  externalId?: string | null;
  billingName?: string | null;
  billingAddress?: BillingAddress | null;
  taxId?: TaxId | null;
  userMetadata: Record<string, unknown>;
  emailVerified: boolean;
  avatarUrl?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An address as stored: state and postal_code optional on the wire, null (never missing) in the row. */
export function storedBillingAddress(a: z.infer<typeof billingAddressInput>): BillingAddress {
  return {
    line1: a.line1,
    city: a.city,
    state: a.state ?? null,
    postal_code: a.postal_code ?? null,
    country: a.country,
  };
}

/** The stored address on the wire: every key present, the optional ones as null. */
export function presentBillingAddress(address: CustomerRow['billingAddress']) {
  return address
    ? {
        line1: address.line1,
        city: address.city,
        state: address.state ?? null,
        postal_code: address.postal_code ?? null,
        country: address.country,
      }
    : null;
}

/** A customer as the Core API returns it (tax_id is an object here; the portal shows a string). */
export function customerRecord(c: CustomerRow): CustomerRecord {
  return {
    id: c.id,
    email: c.email,
    name: c.name ?? null,
    external_id: c.externalId ?? null,
    billing_name: c.billingName ?? null,
    billing_address: presentBillingAddress(c.billingAddress),
    tax_id: c.taxId ? { type: c.taxId.type, number: c.taxId.number } : null,
    user_metadata: c.userMetadata ?? {},
    email_verified: c.emailVerified,
    avatar_url: c.avatarUrl ?? null,
    organization_id: c.organizationId,
    created_at: iso(c.createdAt)!,
    updated_at: iso(c.updatedAt)!,
  };
}
