import { Migration } from '@mikro-orm/migrations';

/**
 * Extra charges of manually billed subscriptions (issue 24): this engine charges the kept card on the
 * due date, so no gateway invoice exists and `gateway_invoice_id` is null (still unique where set).
 */
export class Migration0027ManualInvoices extends Migration {
  override up(): void {
    this.addSql('alter table subscription_invoices alter column gateway_invoice_id drop not null;');
  }
}
