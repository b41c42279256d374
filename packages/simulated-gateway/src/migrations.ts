/**
 * The simulator's migrations, in order (run by migrate.ts). Each was first one of the application's own
 * (db/migrations 0002, 0004 and 0010, kept there as empty steps: docs/decisions/0061-simulator-package.md);
 * the statements are the same. A new one is appended, never edited once shipped.
 */
export interface SimulatorMigration {
  name: string;
  sql: string;
}

/** The books' first tables: idempotency keys and recurrence plans (was the application's 0002). */
const IDEMPOTENCY_AND_PLANS = `
create schema if not exists gateway_sim;

-- A repeated idempotency key returns the stored result of its first call.
create table gateway_sim.idempotency (
  key text primary key,
  operation text not null,
  result jsonb not null,
  created_at timestamptz not null default now()
);

create table gateway_sim.recurrence_plans (
  id text primary key,
  reference text not null,
  name text not null,
  amount bigint not null,
  currency text not null,
  interval text not null,
  interval_count integer not null,
  created_at timestamptz not null default now()
);
`;

/** Tokenized cards and buyers (was the application's 0004, like the next three). */
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

/** Every attempt made under an idempotency key (a failed attempt leaves no stored result, only this trace). */
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

/**
 * The simulator bills its subscriptions itself, one invoice per cycle of its recurrence (`cycle`, 0 on
 * the start date; null for an extra charge), retried on the same invoice after a refusal (`attempts`);
 * one invoice per subscription and cycle (was the application's 0010).
 */
const INVOICE_CYCLES = `
alter table gateway_sim.invoices add column cycle integer, add column attempts integer not null default 0;
create unique index gateway_sim_invoices_cycle_idx on gateway_sim.invoices (subscription_id, cycle)
  where cycle is not null;
create index gateway_sim_invoices_subscription_idx on gateway_sim.invoices (subscription_id, created_at);
`;

/**
 * Chargebacks (decision 0079): one dispute per chargeback of a payment, opened then won or lost; the
 * ledger holds the disputed money while it is open (`dispute_hold`) and gives it back when the dispute
 * is won (`dispute_release`), as Mercado Pago's release report blocks and unblocks it. Card updater:
 * a kept card replaced by the issuer names its replacement (`replaced_by`).
 */
const DISPUTES_AND_CARD_UPDATES = `
create table gateway_sim.disputes (
  id text primary key,
  transaction_id text not null references gateway_sim.transactions (id),
  amount bigint not null check (amount > 0),
  currency text not null,
  status text not null check (status in ('opened', 'won', 'lost')),
  created_at timestamptz not null default now(),
  decided_at timestamptz
);
create index gateway_sim_disputes_transaction_idx on gateway_sim.disputes (transaction_id);
alter table gateway_sim.ledger drop constraint ledger_kind_check,
  add constraint ledger_kind_check check (kind in ('capture', 'refund', 'dispute_hold', 'dispute_release'));
alter table gateway_sim.cards add column replaced_by text references gateway_sim.cards (id);
`;

/**
 * Pix Automático (decision 0096): mandates (the BCB's `rec`, id its idRec) with the payer the sandbox
 * plays (`persona`) and the maximum they set in their bank's app; each cycle's charge (`cobr`, id its
 * txid) and its settlement attempts (number 0 the first, 1–3 the later-day retries). Histories are
 * jsonb arrays of {status, at}, appended to.
 */
const PIX_AUTOMATICO = `
create table gateway_sim.mandates (
  id text primary key check (length(id) = 29),
  reference text not null,
  status text not null check (status in ('created', 'approved', 'rejected', 'expired', 'cancelled')),
  journey text not null,
  object_label text not null,
  debtor jsonb not null,
  start_date date not null,
  end_date date,
  periodicity text not null,
  fixed_amount bigint,
  minimum_amount bigint,
  payer_maximum bigint,
  retry_policy text not null,
  persona text,
  rejection jsonb,
  cancellation jsonb,
  history jsonb not null,
  qr_code text,
  first_payment_id text references gateway_sim.transactions (id),
  request jsonb,
  created_at timestamptz not null default now()
);
create index gateway_sim_mandates_first_payment_idx on gateway_sim.mandates (first_payment_id)
  where first_payment_id is not null;

create table gateway_sim.mandate_charges (
  id text primary key check (id ~ '^[A-Za-z0-9]{26,35}$'),
  mandate_id text not null references gateway_sim.mandates (id),
  reference text not null,
  due_date date not null,
  amount bigint not null check (amount > 0),
  description text,
  status text not null check (status in ('created', 'active', 'completed', 'expired', 'rejected', 'cancelled')),
  retry_policy text not null,
  rejection jsonb,
  cancellation jsonb,
  history jsonb not null,
  paid_at timestamptz,
  created_at timestamptz not null default now()
);
create index gateway_sim_mandate_charges_mandate_idx on gateway_sim.mandate_charges (mandate_id, due_date);

create table gateway_sim.mandate_attempts (
  charge_id text not null references gateway_sim.mandate_charges (id),
  number integer not null check (number between 0 and 3),
  settlement_date date not null,
  kind text not null check (kind in ('scheduled', 'unscheduled', 'retry')),
  status text not null,
  end_to_end_id text not null unique check (length(end_to_end_id) = 32),
  rejection jsonb,
  history jsonb not null,
  primary key (charge_id, number)
);
create index gateway_sim_mandate_attempts_due_idx on gateway_sim.mandate_attempts (settlement_date)
  where status = 'scheduled';
`;

/**
 * Refunds of paid Pix Automático charges (decision 0099): the BCB's pix devolução, keyed as the BCB's
 * API keys it, by the paid attempt's end-to-end id and the receiver's id for the refund (so a repeated
 * PUT finds the first). Statuses: processing (EM_PROCESSAMENTO), refunded (DEVOLVIDO), failed
 * (NAO_REALIZADO); a failed one gives nothing back and does not count against the paid amount.
 */
const MANDATE_REFUNDS = `
create table gateway_sim.mandate_refunds (
  end_to_end_id text not null references gateway_sim.mandate_attempts (end_to_end_id),
  id text not null check (id ~ '^[A-Za-z0-9]{1,35}$'),
  charge_id text not null references gateway_sim.mandate_charges (id),
  return_id text not null unique check (length(return_id) = 32),
  amount bigint not null check (amount > 0),
  status text not null check (status in ('processing', 'refunded', 'failed')),
  reason text,
  requested_at timestamptz not null,
  refunded_at timestamptz,
  primary key (end_to_end_id, id)
);
create index gateway_sim_mandate_refunds_charge_idx on gateway_sim.mandate_refunds (charge_id);
`;

export const SIMULATOR_MIGRATIONS: readonly SimulatorMigration[] = [
  { name: '0001-idempotency-and-plans', sql: IDEMPOTENCY_AND_PLANS },
  { name: '0002-books', sql: [CARDS_AND_BUYERS, TRANSACTIONS, RECURRENCE, ATTEMPTS].join('') },
  { name: '0003-invoice-cycles', sql: INVOICE_CYCLES },
  { name: '0004-disputes-and-card-updates', sql: DISPUTES_AND_CARD_UPDATES },
  { name: '0005-pix-automatico', sql: PIX_AUTOMATICO },
  { name: '0006-mandate-refunds', sql: MANDATE_REFUNDS },
];
