import { Migration } from '@mikro-orm/migrations';

/**
 * What a renewal checkout took from its subscription's balance (a plan change's credit, negative, or an
 * amount owed, positive): its amount is the period's price plus this, and its sale moves the balance by
 * exactly this, whatever the balance became meanwhile.
 */
export class Migration0014RenewalCheckoutBalance extends Migration {
  override up(): void {
    this.addSql(`alter table checkouts add column balance_applied bigint not null default 0;`);
  }
}
