import { Migration } from '@mikro-orm/migrations';

/**
 * A renewal checkout pays one period of one subscription (`renewal_period`). At most one such checkout
 * is payable (open or confirmed) per subscription and period, so `manual-renewal-checkout` hands out
 * the same one however often it is called, even when two calls race.
 */
export class Migration0008RenewalCheckouts extends Migration {
  override up(): void {
    this.addSql(`
alter table checkouts add column renewal_period integer;
create unique index checkouts_payable_renewal_idx on checkouts (subscription_id, renewal_period)
  where renewal_period is not null and status in ('open', 'confirmed');
`);
  }
}
