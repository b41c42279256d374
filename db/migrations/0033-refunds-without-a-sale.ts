import { Migration } from '@mikro-orm/migrations';

/**
 * A refund without a sale (decision 0095): a late pix or boleto of a checkout that ended without a
 * sale (failed, expired) is given back automatically and recorded as a refund of its payment alone.
 * Such a refund is recorded as made (succeeded), never pending, so the refund workflow, which settles
 * pending refunds on their sale, never meets one: the check says so. Refunds are found by their
 * payment (the sums that make a repeated recording a no-op, the lists of a payment's refunds).
 */
export class Migration0033RefundsWithoutASale extends Migration {
  override up(): void {
    this.addSql(`alter table refunds alter column sale_id drop not null;`);
    this.addSql(`alter table refunds add constraint refunds_sale_or_succeeded
      check (sale_id is not null or status = 'succeeded');`);
    this.addSql(`create index refunds_transaction_idx on refunds(transaction_id);`);
  }
}
