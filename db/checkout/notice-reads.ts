import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What a gateway's notice about a transaction reads to find the checkout it was made for. */

/** The checkout our record of the gateway's transaction names; null when none does. */
export async function checkoutOfGatewayTransaction(
  em: EntityManager,
  gatewayTransactionId: string,
): Promise<string | null> {
  const row = await kyselyOf(em)
    .selectFrom('transactions')
    .select('checkoutId')
    .where('gatewayTransactionId', '=', gatewayTransactionId)
    .where('checkoutId', 'is not', null)
    .executeTakeFirst();
  return row?.checkoutId ?? null;
}

/** Whether a checkout with this id exists. */
export async function checkoutExists(em: EntityManager, id: string): Promise<boolean> {
  const row = await kyselyOf(em).selectFrom('checkouts').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
