import { uuidv7 } from 'uuidv7';
import type { SqlExecutor } from './plain-sql.ts';

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
 * Records a paid sale: the one insert of the sales table (checkouts, renewals, extra charges and
 * invoices all come here). The caller holds the lock that makes it happen once. Returns its id.
 */
export async function insertPaidSale(tx: SqlExecutor, sale: PaidSale): Promise<string> {
  const id = uuidv7();
  // The statement's opening words are looked for in pg_stat_activity by the tests' books (recordings in flight).
  await tx.execute(
    `insert into sales (id, organization_id, checkout_id, transaction_id, customer_id, product_id, price_id,
       subscription_id, invoice_id, discount_id, currency, subtotal_amount, discount_amount, amount, installments,
       payment_method, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'paid', ?, ?)`,
    [
      id,
      sale.organizationId,
      sale.checkoutId,
      sale.transactionId,
      sale.customerId,
      sale.productId,
      sale.priceId,
      sale.subscriptionId,
      sale.invoiceId,
      sale.discountId,
      sale.currency,
      sale.subtotalAmount,
      sale.discountAmount,
      sale.amount,
      sale.installments,
      sale.paymentMethod,
      sale.at,
      sale.at,
    ],
  );
  return id;
}
