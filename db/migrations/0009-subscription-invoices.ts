import { Migration } from '@mikro-orm/migrations';

/**
 * Extra charges on a subscription (the spec's "Subscription invoice"): one row per invoice the
 * gateway created, numbered `<customer_invoice_prefix>-<n>` once per organization (the number is
 * taken in the row's own transaction, so numbers have no gaps and no duplicates). A paid invoice's
 * sale names it (`sales.invoice_id`, unique: one sale per invoice however often it is recorded).
 */
export class Migration0009SubscriptionInvoices extends Migration {
  override up(): void {
    this.addSql(`
create table subscription_invoices (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  subscription_id uuid not null references subscriptions(id),
  number text not null,
  gateway_invoice_id text not null unique,
  amount bigint not null check (amount > 0),
  currency text not null,
  description text,
  due_date date not null,
  expiration_date date check (expiration_date >= due_date),
  payment_method text not null default 'credit',
  status text not null check (status in ('pending', 'paid', 'failed', 'voided')),
  no_fees_installments boolean not null,
  failure_reason text,
  transaction_id uuid references transactions(id),
  paid_at timestamptz,
  workflow_id text not null,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (organization_id, number)
);
create index subscription_invoices_subscription_idx on subscription_invoices (subscription_id, created_at desc);
alter table sales add column invoice_id uuid unique references subscription_invoices(id);
`);
  }
}
