import { Migration } from '@mikro-orm/migrations';

/**
 * Plan changes: `balance_amount` is what a prorated change left for the next renewals (positive: owed,
 * negative: a credit), and `price_changes` counts the changes, so the charge of change n has a key
 * of its own however often it is retried.
 */
export class Migration0011SubscriptionPriceChanges extends Migration {
  override up(): void {
    this.addSql(`
alter table subscriptions add column balance_amount bigint not null default 0,
  add column price_changes integer not null default 0;
`);
  }
}
