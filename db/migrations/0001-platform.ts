import { Migration } from '@mikro-orm/migrations';

/** Organizations, identities and credentials, catalog, customers, the event outbox, idempotency and rate limits. */
export class Migration0001Platform extends Migration {
  override up(): void {
    // One script, as it first ran: the constants below only name its sections.
    this.addSql([ORGANIZATIONS, CREDENTIALS, CATALOG, CUSTOMERS, EVENTS, REQUEST_LIMITS].join(''));
  }
}

/** Organizations, their users (and the service's admins) and members. */
const ORGANIZATIONS = `
create table organizations (
  id uuid primary key,
  parent_organization_id uuid references organizations(id),
  name text not null,
  slug text not null unique,
  avatar_url text, bio text, email text, website text, company text, blog text, location text, social_username text,
  status text not null,
  next_review_threshold integer not null default 0,
  customer_invoice_prefix text not null,
  customer_invoice_next_number integer not null default 1,
  profile_settings jsonb not null default '{}',
  feature_settings jsonb not null default '{}',
  subscription_settings jsonb not null default '{}',
  notification_settings jsonb not null default '{}',
  socials jsonb not null default '[]',
  details jsonb not null default '{}',
  created_at timestamptz not null,
  modified_at timestamptz,
  onboarded_at timestamptz
);
create index organizations_parent_idx on organizations(parent_organization_id);

create table users (
  id uuid primary key,
  subject text not null unique,
  email text not null,
  avatar_url text,
  created_at timestamptz not null
);

create table admin_users (
  email text primary key,
  created_at timestamptz not null
);

create table organization_members (
  organization_id uuid not null references organizations(id),
  user_id uuid not null references users(id),
  role text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz not null,
  primary key (organization_id, user_id)
);
create index organization_members_user_idx on organization_members(user_id);
`;

/** The organizations' API keys and access tokens, stored as hashes. */
const CREDENTIALS = `
create table api_keys (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  name text not null,
  environment text not null check (environment in ('live', 'test')),
  scopes text[] not null,
  masked_key text not null,
  secret_hash text not null unique,
  created_by_user_id uuid references users(id),
  created_at timestamptz not null,
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz,
  deleted_at timestamptz
);
create index api_keys_org_idx on api_keys(organization_id, created_at desc);

create table organization_access_tokens (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  comment text not null,
  scopes text[] not null,
  masked_token text not null,
  token_hash text not null unique,
  created_by_user_id uuid references users(id),
  created_at timestamptz not null,
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz
);
create index organization_access_tokens_org_idx on organization_access_tokens(organization_id, created_at desc);
`;

/** Products and their prices (a product's default price deferred: they reference each other). */
const CATALOG = `
create table products (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  name text not null,
  description text,
  metadata jsonb not null default '{}',
  is_archived boolean not null default false,
  is_tax_applicable boolean not null default true,
  default_price_id uuid,
  created_at timestamptz not null,
  modified_at timestamptz
);
create index products_org_idx on products(organization_id, created_at desc);

create table prices (
  id uuid primary key,
  product_id uuid not null references products(id),
  organization_id uuid not null references organizations(id),
  name text,
  type text not null check (type in ('one_time', 'recurring')),
  currency text not null check (currency ~ '^[a-z]{3}$'),
  unit_amount bigint not null check (unit_amount >= 0),
  interval text check (interval in ('day', 'week', 'month', 'year')),
  interval_count integer check (interval_count >= 1),
  tax_behavior text check (tax_behavior in ('unspecified', 'inclusive', 'exclusive')),
  active boolean not null default true,
  metadata jsonb not null default '{}',
  gateway_recurrence_plan_id text,
  created_at timestamptz not null,
  modified_at timestamptz,
  deleted_at timestamptz,
  check (type = 'one_time' or (interval is not null and unit_amount > 0))
);
create index prices_product_idx on prices(product_id, created_at);
alter table products add constraint products_default_price_fk foreign key (default_price_id) references prices(id) deferrable initially deferred;
`;

/** Customers (email and external id unique among the live ones) and their portal sessions. */
const CUSTOMERS = `
create table customers (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  email text not null,
  name text,
  external_id text,
  billing_name text,
  billing_address jsonb,
  tax_id jsonb,
  user_metadata jsonb not null default '{}',
  email_verified boolean not null default false,
  avatar_url text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create unique index customers_org_email_uq on customers(organization_id, lower(email)) where deleted_at is null;
create unique index customers_org_external_id_uq on customers(organization_id, external_id) where deleted_at is null and external_id is not null;
create index customers_org_idx on customers(organization_id, created_at desc);

create table customer_sessions (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  customer_id uuid not null references customers(id),
  token_hash text not null unique,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
`;

/** The event outbox the webhooks and the events API read. */
const EVENTS = `
create table events (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  type text not null,
  data jsonb not null,
  created_at timestamptz not null
);
create index events_org_idx on events(organization_id, created_at desc, id desc);
create index events_org_type_idx on events(organization_id, type, created_at desc);
`;

/** What the API keeps of requests: Idempotency-Key records and rate-limit counters. */
const REQUEST_LIMITS = `
-- Idempotency-Key records: one per (credential's organization, key), kept 24 hours.
create table idempotency_keys (
  scope text not null,
  key text not null,
  request_hash text not null,
  state text not null check (state in ('running', 'done')),
  response_status integer,
  response_body text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (scope, key)
);
create index idempotency_keys_expiry_idx on idempotency_keys(expires_at);

-- Fixed-window request counters shared by every API process. Unlogged: losing them in a crash is harmless.
create unlogged table rate_limit_counters (
  key text primary key,
  count integer not null,
  window_ends_at timestamptz not null
);
`;
