import { Migration } from '@mikro-orm/migrations';

/**
 * A checkout's and a subscription's renewals may be billed by Pix Automático (decision 0096): the
 * engine charges each period through the buyer's mandate (`pix_automatico`), beside the gateway's own
 * recurrence (`gateway`) and the kept card or renewal checkouts (`manual`).
 */
export class Migration0035PixAutomaticoBilling extends Migration {
  override up(): void {
    for (const table of ['checkouts', 'subscriptions']) {
      this.addSql(`alter table ${table} drop constraint ${table}_recurrence_billing_check;`);
      this.addSql(`alter table ${table} add constraint ${table}_recurrence_billing_check
        check (recurrence_billing in ('gateway', 'manual', 'pix_automatico'));`);
    }
  }
}
