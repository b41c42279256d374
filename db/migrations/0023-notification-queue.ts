import { Migration } from '@mikro-orm/migrations';

/**
 * The notifications waiting to be mailed, one row per event: the outbox relay adds it in its pass
 * (before its cursor moves), a worker's sender claims due rows by moving `next_attempt_at` past a
 * lease, and the send's record in `notifications` removes it. No workflow per mail (issue 21, §6).
 */
export class Migration0023NotificationQueue extends Migration {
  override up(): void {
    this.addSql(`create table notification_jobs (
      event_id uuid primary key references events(id),
      organization_id uuid not null references organizations(id),
      attempts int not null default 0,
      next_attempt_at timestamptz not null default now(),
      last_error text,
      gave_up_at timestamptz,
      created_at timestamptz not null default now()
    );`);
    this.addSql(
      'create index notification_jobs_due_idx on notification_jobs (next_attempt_at) where gave_up_at is null;',
    );
  }
}
