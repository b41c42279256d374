import { Migration } from '@mikro-orm/migrations';

/**
 * The notification mails sent to an organization's members, one per event: the activity checks for
 * its event's row before sending and writes it after, so a retried activity sends once.
 */
export class Migration0022Notifications extends Migration {
  override up(): void {
    this.addSql(`create table notifications (
      event_id uuid primary key references events(id),
      organization_id uuid not null references organizations(id),
      recipients text[] not null,
      subject text not null,
      message_id text not null,
      sent_at timestamptz not null
    );`);
  }
}
