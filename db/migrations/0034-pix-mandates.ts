import { Migration } from '@mikro-orm/migrations';

/**
 * Pix Automático's mandates and their cycles' charges (decision 0096), as the gateway reports them:
 * one mandate per subscription, one charge per mandate and period. Statuses only move forward
 * (domain/pix-automatico.ts), whatever order the gateway's notices arrive in; `history` keeps our
 * list of the changes seen, `attempts` the charge's settlement tries as the gateway last listed them.
 */
export class Migration0034PixMandates extends Migration {
  override up(): void {
    this.addSql(`create table mandates (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  subscription_id uuid not null unique references subscriptions(id),
  customer_id uuid not null references customers(id),
  gateway_mandate_id text not null unique,
  status text not null check (status in ('created', 'approved', 'rejected', 'expired', 'cancelled')),
  journey text not null,
  periodicity text not null,
  retry_policy text not null,
  start_date date not null,
  end_date date,
  fixed_amount bigint check (fixed_amount > 0),
  minimum_amount bigint check (minimum_amount >= 0),
  payer_maximum bigint check (payer_maximum >= 0),
  currency text not null,
  object_label text not null,
  debtor_name text not null,
  debtor_tax_id text not null,
  qr_code text,
  rejection_code text,
  rejection_description text,
  cancelled_by text,
  cancellation_code text,
  cancellation_description text,
  history jsonb not null default '[]',
  approved_at timestamptz,
  ended_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);`);
    this.addSql(`create index mandates_org_idx on mandates(organization_id, created_at desc);`);
    this.addSql(`create table mandate_charges (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  mandate_id uuid not null references mandates(id),
  subscription_id uuid not null references subscriptions(id),
  period integer not null,
  gateway_charge_id text not null unique,
  reference text not null unique,
  due_date date not null,
  settlement_date date not null,
  amount bigint not null check (amount > 0),
  status text not null check (status in ('created', 'active', 'completed', 'expired', 'rejected', 'cancelled')),
  retries_requested integer not null default 0 check (retries_requested between 0 and 3),
  failure_reason text,
  attempts jsonb not null default '[]',
  paid_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (mandate_id, period)
);`);
    this.addSql(`create index mandate_charges_org_idx on mandate_charges(organization_id, created_at desc);`);
  }
}
