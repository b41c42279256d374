import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';
import type { CheckoutRow } from './lifecycle.ts';

/** What the buyer's public endpoints read of the checkout object (api/checkout-public.ts, GET /transactions/<id>). */

/** The checkout a client secret opens, or null. */
export async function checkoutBySecret(em: EntityManager, clientSecret: string): Promise<CheckoutRow | null> {
  return (
    (await kyselyOf(em)
      .selectFrom('checkouts')
      .selectAll()
      .where('clientSecret', '=', clientSecret)
      .executeTakeFirst()) ?? null
  );
}

/** Our record of the gateway's transaction `gatewayTransactionId`, or null. */
export async function transactionByGatewayId(em: EntityManager, gatewayTransactionId: string) {
  return (
    (await kyselyOf(em)
      .selectFrom('transactions')
      .selectAll()
      .where('gatewayTransactionId', '=', gatewayTransactionId)
      .executeTakeFirst()) ?? null
  );
}

export type TransactionRow = NonNullable<Awaited<ReturnType<typeof transactionByGatewayId>>>;
