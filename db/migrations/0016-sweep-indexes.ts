import { Migration } from '@mikro-orm/migrations';

/**
 * The hourly sweep pages through the live rows only (activities/sweeps.ts, SWEEP_QUERIES): partial
 * indexes on their ids, so its cost follows the live subscriptions, pending invoices and unsettled
 * checkouts rather than every row ever written.
 */
export class Migration0016SweepIndexes extends Migration {
  override up(): void {
    this.addSql(`create index subscriptions_live_idx on subscriptions (id) where status <> 'canceled';`);
    this.addSql(
      `create index subscription_invoices_pending_idx on subscription_invoices (id) where status = 'pending';`,
    );
    this.addSql(`create index checkouts_unsettled_idx on checkouts (id) where status in ('open', 'confirmed');`);
  }
}
