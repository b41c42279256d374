import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckoutFields, CheckoutRow } from './lifecycle.ts';
import { type Insertable, kyselyOf, type Database } from '../kysely.ts';

/** A new checkout (open): the row as written. */
export async function insertCheckout(
  em: EntityManager,
  checkout: Insertable<Database['checkouts']>,
): Promise<CheckoutRow> {
  return kyselyOf(em).insertInto('checkouts').values(checkout).returningAll().executeTakeFirstOrThrow();
}

/** The checkout's reads, and its writes that leave its status as it is (lifecycle.ts changes that). */

export async function findCheckoutRow(em: EntityManager, checkoutId: string): Promise<CheckoutRow | null> {
  return (
    (await kyselyOf(em).selectFrom('checkouts').selectAll().where('id', '=', checkoutId).executeTakeFirst()) ?? null
  );
}

/** The checkout, locked until the transaction ends. */
export async function lockCheckout(em: EntityManager, checkoutId: string): Promise<CheckoutRow | null> {
  return (
    (await kyselyOf(em)
      .selectFrom('checkouts')
      .selectAll()
      .where('id', '=', checkoutId)
      .forUpdate()
      .executeTakeFirst()) ?? null
  );
}

/** Fields of the checkout written in its current status (the pix code shown, the discount a code applied). */
export async function updateCheckoutFields(
  em: EntityManager,
  checkoutId: string,
  fields: CheckoutFields,
  now = new Date(),
): Promise<CheckoutRow> {
  return kyselyOf(em)
    .updateTable('checkouts')
    .set({ updatedAt: now, ...fields })
    .where('id', '=', checkoutId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
