import { Migration } from '@mikro-orm/migrations';

/**
 * The last period whose gateway billing settled the subscription's balance (a plan change's credit or
 * amount owed, which the gateway's recurrence cannot take): each period settles it at most once, however
 * often the activity that does it is retried.
 */
export class Migration0015GatewayBalanceSettlement extends Migration {
  override up(): void {
    this.addSql(`alter table subscriptions add column balance_settled_period integer;`);
  }
}
