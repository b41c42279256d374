import { Migration } from '@mikro-orm/migrations';

/** Discounts, checkout links, checkouts, transactions, sales, refunds and the subscription records checkouts start. */
export class Migration0003Payments extends Migration {
  override up(): void {
    // One script, as it first ran: the constants below only name its sections.
    this.addSql([DISCOUNTS, CHECKOUTS, TRANSACTIONS, SUBSCRIPTIONS, SALES, GATEWAY_CALLBACKS].join(''));
  }
}

/** Discounts, unique by code (any case) among the live ones. */
const DISCOUNTS = `
create table discounts (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  name text not null,
  code text,
  type text not null check (type in ('percentage', 'fixed')),
  basis_points integer check (basis_points between 1 and 10000),
  amount bigint check (amount > 0),
  currency text check (currency ~ '^[a-z]{3}$'),
  duration text not null check (duration in ('once', 'forever', 'repeating')),
  duration_in_months integer check (duration_in_months >= 1),
  starts_at timestamptz,
  ends_at timestamptz,
  max_redemptions integer check (max_redemptions >= 1),
  redemptions_count integer not null default 0,
  product_ids uuid[] not null default '{}',
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  modified_at timestamptz,
  deleted_at timestamptz,
  check ((type = 'percentage' and basis_points is not null and amount is null)
      or (type = 'fixed' and amount is not null and currency is not null and basis_points is null)),
  check ((duration = 'repeating') = (duration_in_months is not null)),
  check (max_redemptions is null or redemptions_count <= max_redemptions)
);
create unique index discounts_org_code_uq on discounts(organization_id, upper(code)) where deleted_at is null and code is not null;
create index discounts_org_idx on discounts(organization_id, created_at desc);
`;

/** Checkout links, checkouts and the discount redemptions they count. */
const CHECKOUTS = `
create table checkout_links (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  label text,
  product_ids uuid[] not null,
  discount_id uuid references discounts(id),
  allow_discount_codes boolean not null default true,
  success_url text,
  cancel_url text,
  metadata jsonb not null default '{}',
  is_archived boolean not null default false,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index checkout_links_org_idx on checkout_links(organization_id, created_at desc);

create table checkouts (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  status text not null check (status in ('open', 'confirmed', 'succeeded', 'failed', 'expired')),
  client_secret text not null unique,
  workflow_id text not null,
  product_id uuid not null references products(id),
  product_price_id uuid not null references prices(id),
  products uuid[] not null default '{}',
  checkout_link_id uuid references checkout_links(id),
  quantity integer not null default 1 check (quantity >= 1),
  currency text not null,
  subtotal_amount bigint not null check (subtotal_amount >= 0),
  discount_amount bigint not null default 0 check (discount_amount >= 0),
  amount bigint not null check (amount >= 0),
  discount_id uuid references discounts(id),
  allow_discount_codes boolean not null default true,
  customer_id uuid references customers(id),
  external_customer_id text,
  is_business_customer boolean not null default false,
  customer_name text,
  customer_email text,
  customer_ip_address text,
  customer_billing_name text,
  customer_billing_address jsonb,
  customer_tax_id text,
  customer_metadata jsonb not null default '{}',
  subscription_id uuid,
  recurrence_billing text not null default 'gateway' check (recurrence_billing in ('gateway', 'manual')),
  trial_interval text check (trial_interval in ('day', 'week', 'month', 'year')),
  trial_interval_count integer check (trial_interval_count >= 1),
  require_billing_address boolean not null default false,
  success_url text,
  cancel_url text,
  embed_origin text,
  metadata jsonb not null default '{}',
  no_fees_installments boolean not null default false,
  payment_method text,
  gateway_payment_data jsonb,
  decline_reason text,
  expires_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index checkouts_org_idx on checkouts(organization_id, created_at desc);

create table discount_redemptions (
  discount_id uuid not null references discounts(id),
  checkout_id uuid not null references checkouts(id) unique,
  created_at timestamptz not null,
  primary key (discount_id, checkout_id)
);
`;

/** Transactions, numbered by their own sequence. */
const TRANSACTIONS = `
-- Transactions as we recorded them; transaction_number is the sequential reference of the spec.
create sequence transaction_numbers;
create table transactions (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  checkout_id uuid references checkouts(id),
  gateway_transaction_id text not null unique,
  transaction_number bigint not null default nextval('transaction_numbers'),
  status text not null,
  payment_type text not null check (payment_type in ('credit', 'pix', 'boleto')),
  amount bigint not null,
  currency text not null,
  installments integer not null default 1 check (installments between 1 and 12),
  card jsonb,
  authorization_code text,
  decline_reason text,
  buyer jsonb,
  captured_amount bigint not null default 0,
  refunded_amount bigint not null default 0,
  confirmed_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check (refunded_amount <= captured_amount)
);
create index transactions_checkout_idx on transactions(checkout_id);
`;

/** The subscriptions checkouts start. */
const SUBSCRIPTIONS = `
create table subscriptions (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  customer_id uuid not null references customers(id),
  product_id uuid not null references products(id),
  price_id uuid not null references prices(id),
  checkout_id uuid references checkouts(id) unique,
  status text not null check (status in ('incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'canceled')),
  recurrence_billing text not null check (recurrence_billing in ('gateway', 'manual')),
  gateway_subscription_id text,
  amount bigint not null,
  currency text not null,
  discount_id uuid references discounts(id),
  current_period_start timestamptz not null,
  current_period_end timestamptz not null,
  trial_end timestamptz,
  cancel_at_period_end boolean not null default false,
  canceled_at timestamptz,
  created_at timestamptz not null,
  modified_at timestamptz
);
create index subscriptions_org_idx on subscriptions(organization_id, created_at desc);
`;

/** Sales and their refunds. */
const SALES = `
-- One sale per paid checkout (later also per paid renewal or invoice).
create table sales (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  checkout_id uuid references checkouts(id) unique,
  transaction_id uuid not null references transactions(id),
  customer_id uuid not null references customers(id),
  product_id uuid not null references products(id),
  price_id uuid not null references prices(id),
  subscription_id uuid references subscriptions(id),
  discount_id uuid references discounts(id),
  currency text not null,
  subtotal_amount bigint not null,
  discount_amount bigint not null default 0,
  amount bigint not null,
  installments integer not null default 1,
  payment_method text not null,
  status text not null check (status in ('paid', 'refunded', 'partially_refunded')),
  refunded_amount bigint not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check (refunded_amount <= amount)
);
create index sales_org_idx on sales(organization_id, created_at desc);

create table refunds (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  sale_id uuid not null references sales(id),
  transaction_id uuid not null references transactions(id),
  amount bigint not null check (amount > 0),
  reason text,
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index refunds_org_idx on refunds(organization_id, created_at desc);
`;

/** The gateway notifications already handled. */
const GATEWAY_CALLBACKS = `
-- Gateway notifications already handled: a repeated delivery is acknowledged and ignored.
create table gateway_callbacks (
  id text primary key,
  type text not null,
  payload jsonb not null,
  received_at timestamptz not null
);
`;
