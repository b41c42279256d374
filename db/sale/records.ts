import type { EntityManager } from '@mikro-orm/postgresql';
import { productNames } from '../catalog/labels.ts';
import { salePayments } from '../checkout/sale-record-reads.ts';
import { saleCustomers } from '../customer/sale-record-reads.ts';
import { kyselyOf } from '../kysely.ts';
import { disputesOfSales } from './disputes.ts';

/**
 * Sales with what their presentation names of their customer, product and payment (GET /sales and
 * every sale event): the one read of a sale's record. The sales first, then their customers, products
 * and payments from those objects' repositories at once, joined here (a sale whose customer or product
 * is missing is left out, as the inner join did).
 */
export async function salesWithRelations(em: EntityManager, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const sales = await kyselyOf(em)
    .selectFrom('sales')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
  const [customers, products, payments, disputes] = await Promise.all([
    saleCustomers(
      em,
      sales.map((s) => s.customerId),
    ),
    productNames(
      em,
      sales.map((s) => s.productId),
    ),
    salePayments(
      em,
      sales.flatMap((s) => (s.transactionId ? [s.transactionId] : [])),
    ),
    disputesOfSales(
      em,
      sales.map((s) => s.id),
    ),
  ]);
  return sales.flatMap((sale) => {
    const customer = customers.get(sale.customerId);
    const productName = products.get(sale.productId);
    if (!customer || productName === undefined) return [];
    const payment = sale.transactionId ? payments.get(sale.transactionId) : undefined;
    return [
      {
        ...sale,
        customerEmail: customer.email,
        customerName: customer.name,
        productName,
        gatewayTransactionId: payment?.gatewayTransactionId ?? null,
        chargedAmount: payment?.amount ?? null,
        disputes: disputes.get(sale.id) ?? [],
      },
    ];
  });
}

export type SaleWithRelations = Awaited<ReturnType<typeof salesWithRelations>>[number];
