import { Migration } from '@mikro-orm/migrations';

/**
 * The period number whose start is `billing_anchor`. A subscription's periods are counted from its
 * anchor; an upgrade through a checkout starts a new period at the payment and anchors the periods
 * after it there, so the anchor's period is no longer always the first.
 */
export class Migration0013SubscriptionAnchorPeriod extends Migration {
  override up(): void {
    this.addSql(`alter table subscriptions add column anchor_period integer not null default 1;`);
  }
}
