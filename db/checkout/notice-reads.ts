import type { EntityManager } from '@mikro-orm/postgresql';
import type { CheckoutStatus } from '../../domain/checkout.ts';
import { kyselyOf } from '../kysely.ts';

/** What a gateway's notice about a transaction reads to find the payment's owner (use-cases/payment-owners.ts). */

/** The checkout's status and organization (null: no such checkout). */
export async function checkoutStateOf(
  em: EntityManager,
  id: string,
): Promise<{ status: CheckoutStatus; organizationId: string } | null> {
  const row = await kyselyOf(em)
    .selectFrom('checkouts')
    .select(['status', 'organizationId'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? { status: row.status as CheckoutStatus, organizationId: row.organizationId } : null;
}

/** Our record of the gateway's transaction (its id and checkout), or null: none of ours yet. */
export async function transactionOfGatewayPayment(
  em: EntityManager,
  gatewayTransactionId: string,
): Promise<{ id: string; checkoutId: string | null } | null> {
  const row = await kyselyOf(em)
    .selectFrom('transactions')
    .select(['id', 'checkoutId'])
    .where('gatewayTransactionId', '=', gatewayTransactionId)
    .executeTakeFirst();
  return row ?? null;
}
