import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** Reads of the checkout object for the hosted checkout's pages (use-cases/hosted-checkout.ts). */

/** The status and charged product of the checkout with this client secret opened from this checkout link, if any. */
export async function linkCheckoutStatus(
  em: EntityManager,
  clientSecret: string,
  checkoutLinkId: string,
): Promise<{ status: string; productId: string } | null> {
  const row = await kyselyOf(em)
    .selectFrom('checkouts')
    .select(['status', 'productId'])
    .where('clientSecret', '=', clientSecret)
    .where('checkoutLinkId', '=', checkoutLinkId)
    .executeTakeFirst();
  return row ? { status: row.status, productId: row.productId } : null;
}
