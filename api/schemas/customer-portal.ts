import { z } from 'zod';

/** Exactly one of the two identifies the customer; the route answers 400 otherwise. */
export const createCustomerSessionBody = z
  .strictObject({
    customer_id: z.uuid().optional(),
    external_customer_id: z.string().min(1).max(256).optional(),
  })
  .meta({ oneOf: [{ required: ['customer_id'] }, { required: ['external_customer_id'] }] });

export const customerSessionSchema = z.object({
  id: z.string(),
  /** The Customer Session Token (svc_cst_), shown only in this response. */
  token: z.string(),
  expires_at: z.string(),
  customer_id: z.string(),
});

/** The spec's portal customer: exactly these fields. tax_id is a string here (the digits), unlike the Core API. */
export const portalCustomerSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  avatar_url: z.string().nullable(),
  organization_id: z.string(),
  tax_id: z.string().nullable(),
  billing_address: z
    .object({
      line1: z.string(),
      city: z.string(),
      state: z.string().nullable(),
      postal_code: z.string().nullable(),
      country: z.string(),
    })
    .nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PortalCustomer = z.infer<typeof portalCustomerSchema>;
