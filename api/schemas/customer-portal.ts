import { z } from 'zod';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';
import { booleanQuery, listQuery, paginated } from '../../use-cases/schemas/common.ts';
import { subscriptionChargeSchema, subscriptionSchema } from './subscriptions.ts';

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
  /** `{PUBLIC_BASE_URL}/portal?token=…`: the merchant sends it to its customer, whose browser trades it for a cookie. */
  customer_portal_url: z
    .string()
    .describe(
      'A link that opens the customer portal signed in as this customer, valid while the token is; the page ' +
        'exchanges the token for an HttpOnly cookie and takes it out of the address bar',
    ),
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

/**
 * A subscription as its customer sees it: the merchant's record (api/schemas/subscriptions.ts) less
 * what only operators and the merchant need: workflow_id and workflow_url (the Temporal UI),
 * gateway_subscription_id and recurrence_billing (who charges the renewals). The fields are picked,
 * not omitted, so a field the merchant's record gains later stays out until it is chosen here.
 */
export const portalSubscriptionSchema = subscriptionSchema.pick({
  id: true,
  organization_id: true,
  status: true,
  customer_id: true,
  product_id: true,
  price_id: true,
  checkout_id: true,
  amount: true,
  subtotal_amount: true,
  currency: true,
  discount_id: true,
  current_period_start: true,
  current_period_end: true,
  period_number: true,
  trial_end: true,
  cancel_at_period_end: true,
  canceled_at: true,
  ended_at: true,
  created_at: true,
  modified_at: true,
});
export type PortalSubscription = z.infer<typeof portalSubscriptionSchema>;

const reasonFields = {
  failure_reason: z.string().nullable().describe('insufficient_funds, or the BCB code of the refusal'),
  failure_description: z.string().nullable().describe('The reason in words'),
};

/** A Pix Automático subscription's mandate as its customer sees it (api/portal-mandates.ts, decision 0096). */
export const portalMandateSchema = z
  .object({
    id: z.string(),
    status: z.enum(['created', 'approved', 'rejected', 'expired', 'cancelled']),
    journey: z.enum(['journey_1', 'journey_2', 'journey_3', 'journey_4', 'pending']),
    periodicity: z.enum(['weekly', 'monthly', 'quarterly', 'semiannual', 'yearly']),
    start_date: z.string(),
    payer_maximum: z.number().int().nullable().describe('The maximum the payer set at its bank, in cents'),
    currency: z.string(),
    cancellation: z.object({ by: z.string().nullable(), code: z.string(), description: z.string() }).nullable(),
    rejection: z.object({ code: z.string(), description: z.string() }).nullable(),
    next_charge: z
      .object({
        due_date: z.string().describe("YYYY-MM-DD: the day the current period ends, in Brasília's date"),
        amount: z.number().int(),
      })
      .nullable()
      .describe('null once the mandate or the subscription has ended'),
    charges: z
      .array(
        z.object({
          period: z.number().int(),
          due_date: z.string(),
          amount: z.number().int(),
          status: z.enum(['created', 'active', 'completed', 'expired', 'rejected', 'cancelled']),
          ...reasonFields,
          attempts: z.array(
            z.object({
              settlement_date: z.string(),
              kind: z.enum(['scheduled', 'unscheduled', 'retry']),
              status: z.enum(['requested', 'scheduled', 'paid', 'cancelled', 'rejected', 'expired']),
              ...reasonFields,
            }),
          ),
        }),
      )
      .describe('Each period charged through the mandate, with its settlement attempts'),
  })
  .meta({ id: 'PortalMandate' });

export const portalSubscriptionDetailSchema = portalSubscriptionSchema.extend({
  charges: z
    .array(subscriptionChargeSchema.omit({ transaction_id: true }))
    .describe('Every renewal charge and dunning retry, oldest first (by attempted_at, then period, then try)'),
  mandate: portalMandateSchema
    .nullable()
    .describe('The Pix Automático mandate the subscription is billed through; null for any other subscription'),
});

export const listPortalSubscriptionsQuery = listQuery(['created_at', 'current_period_end', 'amount']).extend({
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  product_id: z.string().optional(),
  active: booleanQuery
    .optional()
    .describe('true: subscriptions that still run (neither canceled nor incomplete); false: the others'),
});
export const portalSubscriptionPage = paginated(portalSubscriptionSchema);

/**
 * One change per request: whether it ends with the period, or a move to another price (when the
 * organization allows customer updates). Revoking is the merchant's.
 */
export const updatePortalSubscriptionBody = z
  .union([
    z.strictObject({
      cancel_at_period_end: z
        .boolean()
        .describe('true: it ends when the current period does, with no further charge; false: undo that'),
    }),
    z.strictObject({
      price_id: z
        .uuid()
        .describe(
          "Move to another recurring price of the subscription's product (same currency and interval, the product not archived), " +
            "prorated per the organization's subscription_settings.proration_behavior",
        ),
    }),
  ])
  .describe('Any other field (revoke, metadata…) or two changes at once is a 400');

/** The fields of a subscription record (the merchant's, or the one a workflow Update answers) the customer sees. */
export function presentPortalSubscription(record: PortalSubscription): PortalSubscription {
  const shown = {} as Record<string, unknown>;
  for (const field of Object.keys(portalSubscriptionSchema.shape))
    shown[field] = record[field as keyof PortalSubscription];
  return shown as PortalSubscription;
}
