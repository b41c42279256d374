import type { EntityManager } from '@mikro-orm/postgresql';
import { checkoutChangeFrom, checkoutTransition, type CheckoutChange } from '../../domain/checkout.ts';
import { type ExpressionBuilder, type Selectable, type Updateable, kyselyOf, type Database } from '../kysely.ts';

/**
 * The checkout's state changes, the only writes of its `status`: each is one guarded update
 * (`… where status = <the status the change leaves>`), so a change that does not apply in the
 * checkout's status as committed changes nothing and its caller learns it (null).
 */

export type CheckoutRow = Selectable<Database['checkouts']>;
/** What a change writes beside the status (never the status itself: that is the state machine's). */
export type CheckoutFields = Omit<Updateable<Database['checkouts']>, 'id' | 'status'>;

/** "Open and not expired", written once: a checkout a buyer may still confirm and a merchant update. */
export const openAt = (now: Date) => (eb: ExpressionBuilder<Database, 'checkouts'>) =>
  eb.and([eb('status', '=', 'open'), eb('expiresAt', '>', now)]);

/**
 * `change` applied to the checkout, with `fields`, when its status allows it (a confirmation also
 * needs it unexpired): the row as written, or null when the change does not apply.
 */
export async function transitionCheckout(
  em: EntityManager,
  checkoutId: string,
  change: CheckoutChange,
  fields: CheckoutFields = {},
  now = new Date(),
): Promise<CheckoutRow | null> {
  const from = checkoutChangeFrom(change);
  const to = checkoutTransition(from, change)!;
  const row = await kyselyOf(em)
    .updateTable('checkouts')
    .set({ updatedAt: now, ...fields, status: to })
    .where('id', '=', checkoutId)
    .where(change === 'confirm' ? openAt(now) : (eb) => eb('status', '=', from))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** The merchant's change of an open, unexpired checkout: the row as written, or null when it is not open. */
export async function updateOpenCheckout(
  em: EntityManager,
  checkoutId: string,
  fields: CheckoutFields,
  now = new Date(),
): Promise<CheckoutRow | null> {
  const row = await kyselyOf(em)
    .updateTable('checkouts')
    .set({ updatedAt: now, ...fields })
    .where('id', '=', checkoutId)
    .where(openAt(now))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}
