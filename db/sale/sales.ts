import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import { sql, kyselyOf } from '../kysely.ts';

/** The sale object's repository for its `sales` rows (refunds.ts has its refunds). */

/** What a paid sale records: who bought what, for how much, and which payment (and checkout, subscription or invoice) it came from. */
export interface PaidSale {
  organizationId: string;
  /** The checkout that sold it; null for a renewal, an invoice or an extra charge. */
  checkoutId: string | null;
  /** Our transaction of the payment; null for a checkout whose total is zero. */
  transactionId: string | null;
  customerId: string;
  productId: string;
  priceId: string;
  subscriptionId: string | null;
  /** The extra-charge invoice it pays; null otherwise. */
  invoiceId: string | null;
  discountId: string | null;
  /** As the checkout or the subscription spells it (upper or lower case), kept as it comes. */
  currency: string;
  /** In minor units, as every amount here. */
  subtotalAmount: number;
  discountAmount: number;
  amount: number;
  installments: number;
  paymentMethod: string;
  /** Its created_at and updated_at. */
  at: Date;
}

/**
 * Records a paid sale: the insert of the sales table (checkouts, renewals, extra charges and invoices
 * all record one). The caller holds the lock that makes it happen once. Returns its id.
 */
export async function insertPaidSale(em: EntityManager, sale: PaidSale): Promise<string> {
  const id = uuidv7();
  const s = sale;
  // Written out rather than built: the tests' books find it in pg_stat_activity by its opening words
  // (`insert into sales`: recordings in flight), which the builder would quote.
  await sql`insert into sales (id, organization_id, checkout_id, transaction_id, customer_id, product_id, price_id,
       subscription_id, invoice_id, discount_id, currency, subtotal_amount, discount_amount, amount, installments,
       payment_method, status, created_at, updated_at)
     values (${id}, ${s.organizationId}, ${s.checkoutId}, ${s.transactionId}, ${s.customerId}, ${s.productId},
       ${s.priceId}, ${s.subscriptionId}, ${s.invoiceId}, ${s.discountId}, ${s.currency}, ${s.subtotalAmount},
       ${s.discountAmount}, ${s.amount}, ${s.installments}, ${s.paymentMethod}, 'paid', ${s.at}, ${s.at})`.execute(
    kyselyOf(em),
  );
  return id;
}

/** What the sale of a checkout recorded: its customer, subscription and id (a repeated recording). */
export async function saleOfCheckout(
  em: EntityManager,
  checkoutId: string,
): Promise<{ customerId: string; subscriptionId: string | null; saleId: string } | null> {
  const sale = await kyselyOf(em)
    .selectFrom('sales')
    .select(['id as saleId', 'customerId', 'subscriptionId'])
    .where('checkoutId', '=', checkoutId)
    .executeTakeFirst();
  return sale ?? null;
}

/** The sale, locked until the transaction ends. */
export async function lockSale(em: EntityManager, saleId: string) {
  return kyselyOf(em).selectFrom('sales').selectAll().where('id', '=', saleId).forUpdate().executeTakeFirstOrThrow();
}

/** What the sale's refunds add up to, and the status they give it. */
export async function recordSaleRefunds(
  em: EntityManager,
  saleId: string,
  refunds: { refundedAmount: number; status: 'paid' | 'refunded' | 'partially_refunded' },
  now: Date,
): Promise<void> {
  await kyselyOf(em)
    .updateTable('sales')
    .set({ ...refunds, updatedAt: now })
    .where('id', '=', saleId)
    .execute();
}

/** The sale a payment paid for, locked until the transaction ends (after the payment: the settling's order), or null. */
export async function lockSaleOfTransaction(em: EntityManager, transactionId: string) {
  const row = await kyselyOf(em)
    .selectFrom('sales')
    .selectAll()
    .where('transactionId', '=', transactionId)
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}
