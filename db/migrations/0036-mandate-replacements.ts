import { Migration } from '@mikro-orm/migrations';

/**
 * A subscription's mandate may be replaced once it has ended (decision 0098): one live mandate per
 * subscription (`created` or `approved`), any number of rejected, expired or cancelled ones before it.
 * A journey 1 mandate keeps its request to the payer's bank (its id, status and expiry) as last seen.
 */
export class Migration0036MandateReplacements extends Migration {
  override up(): void {
    this.addSql(`alter table mandates drop constraint mandates_subscription_id_key;`);
    this.addSql(`create unique index mandates_live_subscription_idx on mandates(subscription_id)
  where status in ('created', 'approved');`);
    this.addSql(`create index mandates_subscription_idx on mandates(subscription_id, created_at desc);`);
    this.addSql(`alter table mandates add column request jsonb;`);
  }
}
