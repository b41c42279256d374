import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints, their deliveries (one per event and endpoint) and every attempt of each; the
 * outbox's relay cursor. Each event carries the id of the transaction that wrote it (`tx`) and an
 * insertion number (`seq`): the relay reads events in (tx, seq) order, only from transactions older
 * than every one still running, so an event committed late with a low number is never skipped.
 * A statement-level trigger NOTIFYs the relay at commit.
 */
export class Migration0019Webhooks extends Migration {
  override up(): void {
    this.addSql(`alter table events add column tx xid8 not null default pg_current_xact_id();`);
    this.addSql(`alter table events add column seq bigserial;`);
    this.addSql(`create index events_outbox_idx on events (tx, seq);`);
    this.addSql(`create function notify_events() returns trigger language plpgsql as $$
      begin perform pg_notify('billing_events', ''); return null; end $$;`);
    this.addSql(
      `create trigger events_notify after insert on events for each statement execute function notify_events();`,
    );
    this.addSql(`create table webhook_relay (
      id integer primary key check (id = 1),
      tx xid8 not null,
      seq bigint not null,
      updated_at timestamptz not null
    );`);
    // Events written before webhooks existed had no endpoint to go to.
    this.addSql(`insert into webhook_relay (id, tx, seq, updated_at)
      select 1, pg_current_xact_id(), coalesce(max(seq), 0), now() from events;`);
    this.addSql(`create table webhook_endpoints (
      id uuid primary key,
      organization_id uuid not null references organizations(id),
      url text not null,
      description text,
      event_types text[] not null default '{}',
      enabled boolean not null default true,
      secret text not null,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      disabled_reason text,
      failing_since timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz
    );`);
    this.addSql(
      `create index webhook_endpoints_org_idx on webhook_endpoints (organization_id, created_at) where deleted_at is null;`,
    );
    this.addSql(`create table webhook_deliveries (
      id uuid primary key,
      organization_id uuid not null references organizations(id),
      event_id uuid not null references events(id),
      endpoint_id uuid not null references webhook_endpoints(id),
      status text not null check (status in ('pending', 'succeeded', 'failed', 'canceled')),
      attempts integer not null default 0,
      last_attempt_at timestamptz,
      next_attempt_at timestamptz,
      succeeded_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (event_id, endpoint_id)
    );`);
    this.addSql(`create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc);`);
    this.addSql(`create table webhook_attempts (
      id uuid primary key,
      delivery_id uuid not null references webhook_deliveries(id),
      run_id text not null,
      number integer not null,
      manual boolean not null,
      attempted_at timestamptz not null,
      status_code integer,
      latency_ms integer not null,
      succeeded boolean not null,
      response_excerpt text,
      error text,
      unique (delivery_id, run_id, number)
    );`);
    this.addSql(`create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempted_at);`);
  }
}
