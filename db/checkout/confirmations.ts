import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** The checkout as a confirmation reads it: its row with its price's terms, locked until the transaction ends. */
export async function lockCheckoutForConfirmation(em: EntityManager, checkoutId: string) {
  return kyselyOf(em)
    .selectFrom('checkouts as c')
    .innerJoin('prices as p', 'p.id', 'c.productPriceId')
    .selectAll('c')
    .select(['p.type as priceType', 'p.interval as priceInterval', 'p.intervalCount as priceIntervalCount'])
    .where('c.id', '=', checkoutId)
    .forUpdate('c')
    .executeTakeFirst();
}

export type ConfirmingCheckout = NonNullable<Awaited<ReturnType<typeof lockCheckoutForConfirmation>>>;
