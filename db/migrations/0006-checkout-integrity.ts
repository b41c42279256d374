import { Migration } from '@mikro-orm/migrations';

/**
 * A checkout whose total is zero (a 100 % discount) completes without a charge: its sale has no
 * transaction.
 */
export class Migration0006CheckoutIntegrity extends Migration {
  override up(): void {
    this.addSql(`alter table sales alter column transaction_id drop not null;`);
  }
}
