import type { SubscriptionStatus } from '../domain/subscriptions.ts';
import type { Row } from './plain-sql.ts';
import type { SubscriptionRecord } from '../contracts/subscription.ts';

const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());

/**
 * The record of a `subscriptions` row read with plain SQL (timestamps as text, bigints as strings).
 * Only for the plain-SQL callers not moved yet (activities/checkout-sale.ts, subscription-sales.ts and
 * the legacy half of subscription-periods.ts); the repository's rows present themselves through
 * db/subscription/record.ts. Goes with them.
 */
export function subscriptionRecord(row: Row): SubscriptionRecord {
  return {
    id: row.id as string,
    organization_id: row.organization_id as string,
    status: row.status as SubscriptionStatus,
    customer_id: row.customer_id as string,
    product_id: row.product_id as string,
    price_id: row.price_id as string,
    checkout_id: (row.checkout_id as string | null) ?? null,
    recurrence_billing: row.recurrence_billing as 'gateway' | 'manual',
    gateway_subscription_id: (row.gateway_subscription_id as string | null) ?? null,
    amount: Number(row.amount),
    subtotal_amount: Number(row.subtotal_amount),
    currency: (row.currency as string).toUpperCase(),
    discount_id: (row.discount_id as string | null) ?? null,
    current_period_start: iso(row.current_period_start)!,
    current_period_end: iso(row.current_period_end)!,
    period_number: Number(row.period_number),
    trial_end: iso(row.trial_end),
    cancel_at_period_end: Boolean(row.cancel_at_period_end),
    canceled_at: iso(row.canceled_at),
    ended_at: iso(row.ended_at),
    created_at: iso(row.created_at)!,
    modified_at: iso(row.modified_at),
    workflow_id: row.workflow_id as string,
    metadata: (row.metadata as Record<string, unknown> | null) ?? {},
  };
}
