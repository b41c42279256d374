import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** Reads of the checkout object for the hosted checkout's pages (use-cases/hosted-checkout.ts). */

/** The status of the checkout with this client secret that was opened from this checkout link, if any. */
export async function linkCheckoutStatus(
  em: EntityManager,
  clientSecret: string,
  checkoutLinkId: string,
): Promise<string | null> {
  const row = await kyselyOf(em)
    .selectFrom('checkouts')
    .select('status')
    .where('clientSecret', '=', clientSecret)
    .where('checkoutLinkId', '=', checkoutLinkId)
    .executeTakeFirst();
  return row?.status ?? null;
}
