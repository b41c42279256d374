import { Migration } from '@mikro-orm/migrations';

/**
 * Reconciliation reports (decision 0073): one per organization and run of a day, with one line per
 * payment and kind (payment, refund, fee, dispute, withholding): both sides' cents and the reason
 * of what does not match. Written once, with their `reconciliation.completed` event.
 */
export class Migration0031Reconciliations extends Migration {
  override up(): void {
    this.addSql(`create table reconciliations (
      id uuid primary key,
      organization_id uuid not null references organizations (id),
      day date not null,
      status text not null check (status in ('balanced', 'drift')),
      ours_total bigint not null,
      theirs_total bigint not null,
      unmatched_total bigint not null,
      matched_count integer not null,
      unmatched_count integer not null,
      report_key text not null unique,
      created_at timestamptz not null
    );`);
    this.addSql(
      `create index reconciliations_organization_day on reconciliations (organization_id, day desc, id desc);`,
    );
    this.addSql(`create table reconciliation_lines (
      id uuid primary key,
      reconciliation_id uuid not null references reconciliations (id) on delete cascade,
      position integer not null,
      kind text not null check (kind in ('payment', 'refund', 'fee', 'dispute', 'withholding')),
      gateway_id text,
      reference text,
      ours bigint not null,
      theirs bigint not null,
      difference bigint not null,
      reason text,
      repair text,
      unique (reconciliation_id, position)
    );`);
  }
}
