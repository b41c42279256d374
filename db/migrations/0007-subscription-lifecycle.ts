import { Migration } from '@mikro-orm/migrations';

/**
 * Subscriptions run in their own workflow (`subscription:<id>`): the row carries its workflow id,
 * the period it is in (periods are numbered from 1 and anchored on `billing_anchor`, the first
 * period's start), the card token its manual renewals charge, its price before discounts (each renewal applies the
 * discount again, for as long as the discount's duration lasts), and when it ended. Every renewal
 * charge and dunning retry is one row of subscription_charges: its time, amount, outcome and the
 * gateway's decline reason, so a failed renewal always says why.
 */
export class Migration0007SubscriptionLifecycle extends Migration {
  override up(): void {
    this.addSql(`
alter table subscriptions
  add column workflow_id text,
  add column billing_anchor timestamptz,
  add column period_number integer not null default 1,
  add column card_token_id text,
  add column ended_at timestamptz,
  add column subtotal_amount bigint;
update subscriptions s set workflow_id = 'subscription:' || s.id, billing_anchor = coalesce(s.trial_end, s.current_period_start),
  subtotal_amount = coalesce((select c.subtotal_amount from checkouts c where c.id = s.checkout_id), s.amount);
alter table subscriptions alter column workflow_id set not null, alter column billing_anchor set not null,
  alter column subtotal_amount set not null;
create index subscriptions_customer_idx on subscriptions(organization_id, customer_id);

create table subscription_charges (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  subscription_id uuid not null references subscriptions(id),
  period_number integer not null,
  try_number integer not null,
  amount bigint not null check (amount >= 0),
  currency text not null,
  outcome text not null check (outcome in ('succeeded', 'failed', 'refunded')),
  decline_reason text,
  transaction_id uuid references transactions(id),
  attempted_at timestamptz not null,
  unique (subscription_id, period_number, try_number)
);
`);
  }
}
