import { z } from 'zod';
import { cents, currency, date, positiveCents, reference, timestamp } from './http-fields.ts';

/**
 * The gateway's recurrence plans and subscriptions, declared once: the port's types are inferred
 * from these schemas and the wire shapes (http-recurrence.ts) derived from them.
 */

export const recurrencePlanInput = z.object({
  /** Our price id: plans are kept one per price. */
  reference,
  name: z.string().min(1).max(255),
  amount: positiveCents,
  currency,
  interval: z.enum(['day', 'week', 'month', 'year']),
  intervalCount: z.number().int().min(1),
});
export type RecurrencePlanInput = z.infer<typeof recurrencePlanInput>;

export const recurrencePlan = z.object({
  id: z.string(),
  reference: z.string(),
  amount: cents,
  currency: z.string(),
  interval: z.string(),
  intervalCount: z.number().int(),
  createdAt: timestamp,
});
export type RecurrencePlan = z.infer<typeof recurrencePlan>;

export const gatewaySubscriptionInput = z.object({
  reference,
  planId: z.string().min(1),
  buyerId: z.string().min(1),
  cardToken: z.string().min(1),
  /** YYYY-MM-DD of the first charge the gateway makes itself. */
  startDate: date,
});
export type GatewaySubscriptionInput = z.infer<typeof gatewaySubscriptionInput>;

export const gatewaySubscription = z.object({
  id: z.string(),
  reference: z.string(),
  planId: z.string(),
  buyerId: z.string(),
  status: z.enum(['active', 'canceled']),
  createdAt: timestamp,
});
export type GatewaySubscription = z.infer<typeof gatewaySubscription>;
