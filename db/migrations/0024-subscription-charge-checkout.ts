import { Migration } from '@mikro-orm/migrations';

/**
 * The checkout whose sale paid a period, on its row of the subscription's timeline: the subscription's
 * workflow records a renewal or upgrade checkout's sale once, and a retried record finds it here
 * (issue 21, §3). At most one row per checkout.
 */
export class Migration0024SubscriptionChargeCheckout extends Migration {
  override up(): void {
    this.addSql('alter table subscription_charges add column checkout_id uuid references checkouts(id);');
    this.addSql(
      'create unique index subscription_charges_checkout_idx on subscription_charges (checkout_id) where checkout_id is not null;',
    );
  }
}
