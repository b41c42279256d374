import { Migration } from '@mikro-orm/migrations';

/** The merchant's key/value metadata of a subscription, as products and customers have theirs. */
export class Migration0012SubscriptionMetadata extends Migration {
  override up(): void {
    this.addSql(`alter table subscriptions add column metadata jsonb not null default '{}';`);
  }
}
