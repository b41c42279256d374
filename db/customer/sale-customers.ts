import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf, type Insertable, type Updateable, type Database } from '../kysely.ts';

/** The customer a paid checkout's sale records (activities/checkout-sale.ts): made, or completed. */

/** A new customer of the checkout's buyer. */
export async function insertSaleCustomer(
  tx: EntityManager,
  customer: Insertable<Database['customers']>,
): Promise<void> {
  await kyselyOf(tx).insertInto('customers').values(customer).execute();
}

/** The fields a found customer lacked, from the checkout, with its updated_at. */
export async function completeSaleCustomer(
  tx: EntityManager,
  id: string,
  fields: Updateable<Database['customers']>,
  now: Date,
): Promise<void> {
  await kyselyOf(tx)
    .updateTable('customers')
    .set({ ...fields, updatedAt: now })
    .where('id', '=', id)
    .execute();
}
