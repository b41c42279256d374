import type { EntityManager } from '@mikro-orm/postgresql';
import { salesWithRelations, type SaleWithRelations } from '../db/sale/records.ts';
import { presentSale, type SaleBody } from './schemas/sales.ts';

/**
 * Sales as GET /sales/{id} answers them, in the order of `ids`, through the sale's repository: the
 * one read of the list and the record, and of every sale event (in the transaction that writes the
 * sale, so the event carries it as committed).
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
    chargedAmount: row.chargedAmount,
    customer: { id: row.customerId, email: row.customerEmail, name: row.customerName },
    product: { id: row.productId, name: row.productName },
    disputes: row.disputes,
  });
}
