import { z } from 'zod';
import type { Config } from '../../config/env.ts';
import { subscriptionRecord, type SubscriptionChargeRow, type SubscriptionRow } from '../../db/subscription/record.ts';
import { RECURRENCE_BILLINGS, SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';
import { iso, listQuery, metadata, paginated } from '../../use-cases/schemas/common.ts';
import type { Assert, Same } from './record-checks.ts';
import type { SubscriptionRecord } from '../../contracts/subscription.ts';

const timestamp = z.string();

/**
 * The subscription's fields; its card token stays out (it charges the customer's card). The record its
 * events carry: the API's answers add the link to its workflow in the Temporal UI (subscriptionSchema).
 */
export const subscriptionRecordSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  customer_id: z.string(),
  product_id: z.string(),
  price_id: z.string(),
  checkout_id: z.string().nullable(),
  recurrence_billing: z
    .enum(RECURRENCE_BILLINGS)
    .describe(
      "gateway: the gateway renews it; manual: our own renewals charge it; pix_automatico: our own renewals charge the buyer's Pix Automático mandate",
    ),
  gateway_subscription_id: z.string().nullable(),
  amount: z.number().int().describe('What each period is charged, after discount, in cents'),
  subtotal_amount: z.number().int().describe('The price before discounts, in cents'),
  currency: z.string().describe('Upper case, as on checkouts'),
  discount_id: z.string().nullable(),
  current_period_start: timestamp,
  current_period_end: timestamp,
  period_number: z.number().int().describe('0 during the trial, then 1, 2…'),
  trial_end: timestamp.nullable(),
  cancel_at_period_end: z.boolean(),
  canceled_at: timestamp.nullable(),
  ended_at: timestamp.nullable(),
  created_at: timestamp,
  modified_at: timestamp.nullable(),
  workflow_id: z.string().describe('subscription:<id>, the Temporal workflow that bills it'),
  metadata: z.record(z.string(), z.unknown()).describe("The merchant's key/value metadata"),
});
/** The schema and the record the entity's row presents (db/subscription/record.ts) say the same fields. */
export type SubscriptionRecordMatchesSchema = Assert<
  Same<z.infer<typeof subscriptionRecordSchema>, SubscriptionRecord>
>;
/** A subscription as the API answers it: its record and the link to its workflow. */
export const subscriptionSchema = subscriptionRecordSchema.extend({
  workflow_url: z.string().describe('That workflow in the Temporal UI (the API’s address of it; events leave it out)'),
});
export type SubscriptionBody = z.infer<typeof subscriptionSchema>;

export const subscriptionChargeSchema = z.object({
  period_number: z.number().int(),
  try_number: z.number().int().describe('1 for the renewal charge, then one more per dunning retry'),
  amount: z.number().int(),
  currency: z.string().describe('Upper case'),
  outcome: z.enum(['succeeded', 'failed', 'refunded']),
  decline_reason: z.string().nullable().describe("The gateway's reason when the charge failed"),
  transaction_id: z.string().nullable().describe('Our transaction record of the charge; null when none was made'),
  attempted_at: timestamp,
});

export const subscriptionDetailSchema = subscriptionSchema.extend({
  charges: z
    .array(subscriptionChargeSchema)
    .describe('Every renewal charge and dunning retry, oldest first (by attempted_at, then period, then try)'),
});

export const listSubscriptionsQuery = listQuery(['created_at', 'current_period_end', 'amount']).extend({
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  customer_id: z.string().optional(),
  external_customer_id: z.string().max(256).optional().describe("The customer's external_id"),
  product_id: z.string().optional(),
});
export const subscriptionPage = paginated(subscriptionSchema);

/** One change per request: cancel at the period's end (or undo it), revoke now, change price or metadata. */
export const updateSubscriptionBody = z.union([
  z.strictObject({
    cancel_at_period_end: z
      .boolean()
      .describe('true: it ends when the current period does, with no further charge; false: undo that'),
  }),
  z.strictObject({ revoke: z.literal(true).describe('End it now: no renewal or dunning retry is charged again') }),
  z.strictObject({
    price_id: z
      .uuid()
      .describe(
        "Move to this recurring price (same currency and interval), prorated per the organization's " +
          'subscription_settings.proration_behavior',
      ),
  }),
  z.strictObject({ metadata: metadata.describe('Replaces the whole metadata object ({} clears it)') }),
]);
export type UpdateSubscriptionBody = z.infer<typeof updateSubscriptionBody>;
export const subscriptionParams = z.object({ id: z.string().max(64) });

/** Where an operator watches the workflow: the Temporal UI's page of it (the id holds a ':'). */
export function workflowUrl(config: Pick<Config, 'TEMPORAL_UI_URL' | 'TEMPORAL_NAMESPACE'>, workflowId: string) {
  const base = config.TEMPORAL_UI_URL.replace(/\/+$/, '');
  return `${base}/namespaces/${config.TEMPORAL_NAMESPACE}/workflows/${encodeURIComponent(workflowId)}`;
}

export function presentSubscription(s: SubscriptionRow, url: string): SubscriptionBody {
  return { ...subscriptionRecord(s), workflow_url: url };
}

export function presentCharge(c: SubscriptionChargeRow): z.infer<typeof subscriptionChargeSchema> {
  return {
    period_number: c.periodNumber,
    try_number: c.tryNumber,
    amount: c.amount,
    currency: c.currency.toUpperCase(),
    outcome: c.outcome,
    decline_reason: c.declineReason ?? null,
    transaction_id: c.transactionId ?? null,
    attempted_at: iso(c.attemptedAt)!,
  };
}
