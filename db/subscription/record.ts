import type { InferEntity } from '@mikro-orm/core';
import type { Subscription, SubscriptionCharge } from '../entities/payments.ts';
import type { SubscriptionRecord } from '../../contracts/subscription.ts';

/**
 * A subscription's row as the entity declares it (the one declaration of its shape): what the
 * repository's reads answer, entity reads and the typed Kysely alike.
 */
export type SubscriptionRow = InferEntity<typeof Subscription>;
/** Every column of a new subscription's row, given (none left to the migrations' defaults). */
export type NewSubscriptionRow = Required<Pick<SubscriptionRow, Extract<keyof SubscriptionRow, string>>>;
export type SubscriptionChargeRow = InferEntity<typeof SubscriptionCharge>;

const iso = (d: Date | null | undefined) => (d == null ? null : d.toISOString());

/**
 * The subscription's record, as its events carry it and its workflow's Updates answer it (the API adds
 * the workflow's link): the row's fields by their wire names, its card token left out.
 */
export function subscriptionRecord(s: SubscriptionRow): SubscriptionRecord {
  return {
    id: s.id,
    organization_id: s.organizationId,
    status: s.status,
    customer_id: s.customerId,
    product_id: s.productId,
    price_id: s.priceId,
    checkout_id: s.checkoutId ?? null,
    recurrence_billing: s.recurrenceBilling,
    gateway_subscription_id: s.gatewaySubscriptionId ?? null,
    amount: s.amount,
    subtotal_amount: s.subtotalAmount,
    currency: s.currency.toUpperCase(),
    discount_id: s.discountId ?? null,
    current_period_start: s.currentPeriodStart.toISOString(),
    current_period_end: s.currentPeriodEnd.toISOString(),
    period_number: s.periodNumber,
    trial_end: iso(s.trialEnd),
    cancel_at_period_end: s.cancelAtPeriodEnd,
    canceled_at: iso(s.canceledAt),
    ended_at: iso(s.endedAt),
    created_at: s.createdAt.toISOString(),
    modified_at: iso(s.modifiedAt),
    workflow_id: s.workflowId,
    metadata: s.metadata ?? {},
  };
}
