import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf, type Insertable, type Selectable, type Updateable, type Database } from '../kysely.ts';

/** The customer a paid checkout's sale records (activities/checkout-sale.ts): made, or completed. */

type CustomerRow = Selectable<Database['customers']>;

/** A new customer of the checkout's buyer, as written (for its customer.created event). */
export async function insertSaleCustomer(
  tx: EntityManager,
  customer: Insertable<Database['customers']>,
): Promise<CustomerRow> {
  return kyselyOf(tx).insertInto('customers').values(customer).returningAll().executeTakeFirstOrThrow();
}

/** The fields a found customer lacked, from the checkout, with its updated_at; the row as written. */
export async function completeSaleCustomer(
  tx: EntityManager,
  id: string,
  fields: Updateable<Database['customers']>,
  now: Date,
): Promise<CustomerRow> {
  return kyselyOf(tx)
    .updateTable('customers')
    .set({ ...fields, updatedAt: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
