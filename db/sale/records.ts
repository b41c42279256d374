import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/**
 * Sales with what their presentation names of their customer, product and payment (GET /sales and
 * every sale event): the one read of a sale's record.
 */
export async function salesWithRelations(em: EntityManager, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return kyselyOf(em)
    .selectFrom('sales as s')
    .innerJoin('customers as c', 'c.id', 's.customerId')
    .innerJoin('products as p', 'p.id', 's.productId')
    .leftJoin('transactions as t', 't.id', 's.transactionId')
    .selectAll('s')
    .select([
      'c.email as customerEmail',
      'c.name as customerName',
      'p.name as productName',
      't.gatewayTransactionId',
      't.amount as chargedAmount',
    ])
    .where('s.id', 'in', [...ids])
    .execute();
}

export type SaleWithRelations = Awaited<ReturnType<typeof salesWithRelations>>[number];
