import type { EntityManager } from '@mikro-orm/postgresql';
import { CheckoutLink } from '../entities/payments.ts';
import type { CheckoutLinkRow } from './checkout-links.ts';

/** What the hosted checkout's link page reads of the catalog (its product and price: products.ts). */

/** The checkout link by id, of any organization, unless archived. */
export async function unarchivedCheckoutLink(em: EntityManager, id: string): Promise<CheckoutLinkRow | null> {
  return em.findOne(CheckoutLink, { id, isArchived: false });
}
