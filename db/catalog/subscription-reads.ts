import type { EntityManager } from '@mikro-orm/postgresql';
import type { PeriodInterval } from '../../domain/periods.ts';
import { kyselyOf } from '../kysely.ts';

/** What the subscription object reads of the catalog: its price's period, and the prices it may move to. */

/** A recurring price's period (null when the price is not recurring or is unknown). */
export async function pricePeriodOf(
  em: EntityManager,
  priceId: string,
): Promise<{ interval: PeriodInterval; intervalCount: number | null } | null> {
  const row = await kyselyOf(em)
    .selectFrom('prices')
    .select(['interval', 'intervalCount'])
    .where('id', '=', priceId)
    .executeTakeFirst();
  return row?.interval ? { interval: row.interval, intervalCount: row.intervalCount ?? null } : null;
}

/** The organization's price (not deleted) a plan change asks for, and whether its product is archived. */
export async function planChangePrice(em: EntityManager, organizationId: string, priceId: string) {
  const db = kyselyOf(em);
  const price = await db
    .selectFrom('prices')
    .selectAll()
    .where('id', '=', priceId)
    .where('organizationId', '=', organizationId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  if (!price) return null;
  const product = await db
    .selectFrom('products')
    .select('isArchived')
    .where('id', '=', price.productId)
    .executeTakeFirst();
  return { price, productArchived: product?.isArchived ?? true };
}

/** The discount a subscription holds (deleted or not: a held discount lasts its duration). */
export async function heldDiscount(em: EntityManager, discountId: string) {
  return (
    (await kyselyOf(em).selectFrom('discounts').selectAll().where('id', '=', discountId).executeTakeFirst()) ?? null
  );
}

/** A price by id (deleted or not), as the subscription's current price is read. */
export async function priceById(em: EntityManager, priceId: string) {
  return (await kyselyOf(em).selectFrom('prices').selectAll().where('id', '=', priceId).executeTakeFirst()) ?? null;
}

/** The organization's recurring prices (not deleted) but `exceptPriceId`, cheapest first. */
export async function otherRecurringPrices(em: EntityManager, organizationId: string, exceptPriceId: string) {
  return kyselyOf(em)
    .selectFrom('prices')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('deletedAt', 'is', null)
    .where('type', '=', 'recurring')
    .where('id', '!=', exceptPriceId)
    .orderBy('unitAmount', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** The products with these ids. */
export async function productsByIds(em: EntityManager, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return kyselyOf(em)
    .selectFrom('products')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}
