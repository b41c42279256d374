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

/**
 * What a confirmation request checks before its Update: the checkout's status and buyer, its
 * customer's e-mail and name, and its price's kind, in one statement (the buyer's hot path).
 */
export async function confirmableCheckoutRow(
  em: EntityManager,
  by: { clientSecret: string } | { id: string; organizationId: string },
) {
  const query = kyselyOf(em)
    .selectFrom('checkouts as c')
    .innerJoin('prices as p', 'p.id', 'c.productPriceId')
    .leftJoin('customers as cu', 'cu.id', 'c.customerId')
    .select([
      'c.id',
      'c.status',
      'c.amount',
      'c.customerId',
      'c.customerEmail',
      'c.customerName',
      'cu.email as ownerEmail',
      'cu.name as ownerName',
      'c.customerTaxId',
      'p.type as priceType',
      'p.interval as priceInterval',
      'c.noFeesInstallments',
      'c.paymentMethod',
      'c.requireBillingAddress',
    ])
    .select((eb) => eb('c.customerBillingAddress', 'is not', null).as('hasBillingAddress'));
  return (
    'clientSecret' in by
      ? query.where('c.clientSecret', '=', by.clientSecret)
      : query.where('c.id', '=', by.id).where('c.organizationId', '=', by.organizationId)
  ).executeTakeFirst();
}
