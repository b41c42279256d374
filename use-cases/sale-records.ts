import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlExecutor } from '../db/plain-sql.ts';
import { salesWithRelations, type SaleWithRelations } from '../db/sale/records.ts';
import { presentSale, type SaleBody } from './schemas/sales.ts';

/** A sale's row with what its presentation names of its customer, product and payment. */
interface SaleRow {
  id: string;
  organization_id: string;
  checkout_id: string | null;
  transaction_id: string | null;
  customer_id: string;
  customer_email: string;
  customer_name: string | null;
  product_id: string;
  product_name: string;
  price_id: string;
  subscription_id: string | null;
  discount_id: string | null;
  currency: string;
  subtotal_amount: string;
  discount_amount: string;
  amount: string;
  installments: number;
  payment_method: string;
  status: 'paid' | 'refunded' | 'partially_refunded';
  refunded_amount: string;
  created_at: Date;
  updated_at: Date;
  gateway_transaction_id: string | null;
  charged_amount: string | null;
}

/**
 * Sales as GET /sales/{id} answers them, in the order of `ids`: the one read of the list and the
 * record, and of every sale event (in the transaction that writes the sale, so the event carries it
 * as committed).
 */
export async function saleRecords(tx: SqlExecutor, ids: readonly string[]): Promise<SaleBody[]> {
  if (ids.length === 0) return [];
  const rows = await tx.execute<SaleRow[]>(
    `select s.*, c.email as customer_email, c.name as customer_name, p.name as product_name,
       t.gateway_transaction_id, t.amount as charged_amount
     from sales s
     join customers c on c.id = s.customer_id
     join products p on p.id = s.product_id
     left join transactions t on t.id = s.transaction_id
     where s.id in (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  const byId = new Map(rows.map((row) => [row.id, present(row)]));
  return ids.map((id) => byId.get(id)!);
}

/** One sale, as saleRecords reads it. */
export async function saleRecord(tx: SqlExecutor, id: string): Promise<SaleBody> {
  const [record] = await saleRecords(tx, [id]);
  if (!record) throw new Error(`Sale ${id} not found`);
  return record;
}

function present(row: SaleRow): SaleBody {
  const sale = {
    id: row.id,
    organizationId: row.organization_id,
    checkoutId: row.checkout_id,
    transactionId: row.transaction_id,
    priceId: row.price_id,
    subscriptionId: row.subscription_id,
    discountId: row.discount_id,
    currency: row.currency,
    subtotalAmount: Number(row.subtotal_amount),
    discountAmount: Number(row.discount_amount),
    amount: Number(row.amount),
    installments: Number(row.installments),
    paymentMethod: row.payment_method,
    status: row.status,
    refundedAmount: Number(row.refunded_amount),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
  return presentSale(sale, {
    gatewayTransactionId: row.gateway_transaction_id,
    chargedAmount: row.charged_amount === null ? null : Number(row.charged_amount),
    customer: { id: row.customer_id, email: row.customer_email, name: row.customer_name },
    product: { id: row.product_id, name: row.product_name },
  });
}

/**
 * Sales as GET /sales/{id} answers them, in the order of `ids`, through the sale's repository: the
 * form of saleRecords for callers on an EntityManager (saleRecords stays for the plain-SQL paths of
 * the subscription's and the invoice's activities until they move).
 */
export async function saleRecordsIn(em: EntityManager, ids: readonly string[]): Promise<SaleBody[]> {
  const rows = await salesWithRelations(em, ids);
  const byId = new Map(rows.map((row) => [row.id, presentRow(row)]));
  return ids.map((id) => byId.get(id)!);
}

/** One sale, as saleRecordsIn reads it. */
export async function saleRecordIn(em: EntityManager, id: string): Promise<SaleBody> {
  const [record] = await saleRecordsIn(em, [id]);
  if (!record) throw new Error(`Sale ${id} not found`);
  return record;
}

function presentRow(row: SaleWithRelations): SaleBody {
  return presentSale(row, {
    gatewayTransactionId: row.gatewayTransactionId,
    // An aliased column of a joined table comes back as the driver reads it (a bigint as text).
    chargedAmount: row.chargedAmount === null ? null : Number(row.chargedAmount),
    customer: { id: row.customerId, email: row.customerEmail, name: row.customerName },
    product: { id: row.productId, name: row.productName },
  });
}
