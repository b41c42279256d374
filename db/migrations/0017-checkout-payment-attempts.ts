import { Migration } from '@mikro-orm/migrations';

/**
 * A checkout's payment attempts outlive its workflow run: `payment_slot` is the number of the last
 * confirmation (each payment call's gateway key carries it, so a run started again never reuses one),
 * and `confirmation` what that confirmation asked the gateway for (method, card token, installments),
 * so a run started on a checkout left confirmed can ask the gateway what became of the call.
 */
export class Migration0017CheckoutPaymentAttempts extends Migration {
  override up(): void {
    this.addSql(`alter table checkouts add column payment_slot integer not null default 0;`);
    this.addSql(`alter table checkouts add column confirmation jsonb;`);
  }
}
