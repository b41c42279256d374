import { Migration } from '@mikro-orm/migrations';

/**
 * Journey 4 (decision 0100): the mandate keeps the gateway's id of the due-date charge its QR code pays
 * (the renewal's pix), as the gateway answered its creation: the renewal checkout's pix is that charge.
 * A rec read later does not name it (the BCB's dadosJornada is journey 3's alone), so it is never
 * overwritten by a sight.
 */
export class Migration0038MandateDueCharges extends Migration {
  override up(): void {
    this.addSql(`alter table mandates add column first_payment_id text;`);
  }
}
