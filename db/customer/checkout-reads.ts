import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the checkout's confirmation reads of its named customer. */

/** The e-mail and name of the customer a checkout names (deleted or not), or undefined. */
export async function checkoutOwnerOf(em: EntityManager, customerId: string) {
  return kyselyOf(em)
    .selectFrom('customers')
    .select(['email as ownerEmail', 'name as ownerName'])
    .where('id', '=', customerId)
    .executeTakeFirst();
}

/** The e-mail of the organization's (undeleted) customer `customerId`, or null. */
export async function customerEmailOf(
  em: EntityManager,
  organizationId: string,
  customerId: string,
): Promise<string | null> {
  const customer = await kyselyOf(em)
    .selectFrom('customers')
    .select('email')
    .where('id', '=', customerId)
    .where('organizationId', '=', organizationId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return customer?.email ?? null;
}
