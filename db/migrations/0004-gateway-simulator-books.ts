import { Migration } from '@mikro-orm/migrations';

/**
 * The rest of the simulated gateway's books (schema gateway_sim): tokenized cards, buyers,
 * transactions with a ledger of every capture and refund, subscriptions, invoices, and every
 * attempt made under an idempotency key (a failed attempt leaves no stored result, only this trace).
 */
export class Migration0004GatewaySimulatorBooks extends Migration {
  override up(): void {
    // One script, as it first ran: the constants below only name its sections.
    this.addSql([CARDS_AND_BUYERS, TRANSACTIONS, RECURRENCE, ATTEMPTS].join(''));
  }
}

/** Tokenized cards and buyers. */
const CARDS_AND_BUYERS = `
-- Never the card number or CVV: only what a receipt shows, plus the test card's scripted outcome.
create table gateway_sim.cards (
  id text primary key,
  brand text not null,
  first4 text not null,
  last4 text not null,
  holder_name text not null,
  expiration_month text not null,
  expiration_year text not null,
  outcome text not null,
  created_at timestamptz not null default now()
);

create table gateway_sim.buyers (
  id text primary key,
  email text not null,
  name text,
  tax_id text,
  created_at timestamptz not null default now()
);
`;

/** Transactions and the ledger of the money that moved. */
const TRANSACTIONS = `
create sequence gateway_sim.transaction_numbers start 100001;

create table gateway_sim.transactions (
  id text primary key,
  reference text not null,
  status text not null,
  payment_type text not null,
  amount bigint not null,
  base_amount bigint not null,
  currency text not null,
  installments integer not null,
  installment_amounts jsonb not null,
  authorization_code text,
  decline_reason text,
  card_id text references gateway_sim.cards (id),
  card jsonb,
  pix jsonb,
  boleto jsonb,
  buyer_id text references gateway_sim.buyers (id),
  transaction_number text not null unique,
  captured_amount bigint not null default 0,
  refunded_amount bigint not null default 0,
  -- A pending pix fails as expired after this instant; a pending boleto fails as overdue after it.
  lapses_at timestamptz,
  created_at timestamptz not null default now(),
  confirmed_at timestamptz,
  updated_at timestamptz not null default now()
);
create index on gateway_sim.transactions (reference);

-- Money that moved: one row per capture and per refund.
create table gateway_sim.ledger (
  id bigserial primary key,
  transaction_id text not null references gateway_sim.transactions (id),
  kind text not null check (kind in ('capture', 'refund')),
  amount bigint not null check (amount > 0),
  idempotency_key text,
  created_at timestamptz not null default now()
);
create index on gateway_sim.ledger (transaction_id);
`;

/** Subscriptions and their invoices. */
const RECURRENCE = `
create table gateway_sim.subscriptions (
  id text primary key,
  reference text not null,
  plan_id text not null references gateway_sim.recurrence_plans (id),
  buyer_id text not null references gateway_sim.buyers (id),
  card_id text not null references gateway_sim.cards (id),
  start_date date not null,
  status text not null,
  created_at timestamptz not null default now(),
  canceled_at timestamptz
);

create table gateway_sim.invoices (
  id text primary key,
  subscription_id text not null references gateway_sim.subscriptions (id),
  amount bigint not null,
  currency text not null,
  description text,
  status text not null,
  due_date date not null,
  expiration_date date,
  no_fees_installments boolean not null,
  transaction_id text references gateway_sim.transactions (id),
  paid_at timestamptz,
  created_at timestamptz not null default now()
);
`;

/** Every attempt made under an idempotency key. */
const ATTEMPTS = `
create table gateway_sim.attempts (
  id bigserial primary key,
  key text not null,
  operation text not null,
  outcome text,
  created_at timestamptz not null default now()
);
create index on gateway_sim.attempts (key);
`;
