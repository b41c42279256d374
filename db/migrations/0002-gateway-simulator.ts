import { Migration } from '@mikro-orm/migrations';

/**
 * The simulated gateway's own books, in a schema of their own: they stand for the external
 * gateway's state, shared by the API, the worker and the standalone simulator server.
 */
export class Migration0002GatewaySimulator extends Migration {
  override up(): void {
    this.addSql(`
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
`);
  }
}
