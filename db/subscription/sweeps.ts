/**
 * What the periodic sweep (activities/sweeps.ts) pages through of the subscription object: `from` in
 * the order of `id` (its id column, selected as `id`). Each `where` is the predicate of a partial index
 * (migration 0016), so a sweep reads only the live rows however many have ended.
 */
export interface SweepQuery {
  select: string;
  from: string;
  where: string;
  id: string;
}

/** Live subscriptions, and pending extra-charge invoices with their subscription's customer and gateway id. */
export const SUBSCRIPTION_SWEEPS = {
  subscriptions: {
    select: 'id, organization_id, customer_id',
    from: 'subscriptions',
    where: `status <> 'canceled'`,
    id: 'id',
  },
  invoices: {
    select: `i.id, i.organization_id, i.subscription_id, s.customer_id, s.gateway_subscription_id,
      i.gateway_invoice_id, i.amount::text as amount, i.currency, i.description, i.due_date::text as due_date,
      i.expiration_date::text as expiration_date, i.no_fees_installments, i.created_at`,
    from: 'subscription_invoices i join subscriptions s on s.id = i.subscription_id',
    where: `i.status = 'pending'`,
    id: 'i.id',
  },
} satisfies Record<string, SweepQuery>;
