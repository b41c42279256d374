import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, kyselyOf } from '../kysely.ts';

/** What the checkout's confirmation reads of the catalog. */

/** The kind and period of the price a checkout charges (undefined for an unknown price). */
export async function checkoutPriceTerms(em: EntityManager, priceId: string) {
  return kyselyOf(em)
    .selectFrom('prices')
    .select(['type as priceType', 'interval as priceInterval', 'intervalCount as priceIntervalCount'])
    .where('id', '=', priceId)
    .executeTakeFirst();
}

/** The organization's (undeleted) discount whose code is `code`, in any case; undefined when none. */
export async function discountByCode(em: EntityManager, organizationId: string, code: string) {
  return kyselyOf(em)
    .selectFrom('discounts')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where(sql`upper(code)`, '=', sql`upper(${code})`)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
}

/** The currency of price `priceId` (a first sale's subscription is billed in it). */
export async function priceCurrency(em: EntityManager, priceId: string): Promise<string> {
  const price = await kyselyOf(em)
    .selectFrom('prices')
    .select('currency')
    .where('id', '=', priceId)
    .executeTakeFirstOrThrow();
  return price.currency;
}
