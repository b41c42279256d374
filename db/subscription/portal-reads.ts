import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';
import type { SubscriptionRow } from './record.ts';

/** What the customer portal's pages read of the subscriptions. */

/** The customer's subscriptions in the organization, newest first. */
export async function customerSubscriptions(
  em: EntityManager,
  organizationId: string,
  customerId: string,
): Promise<SubscriptionRow[]> {
  return kyselyOf(em)
    .selectFrom('subscriptions')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('customerId', '=', customerId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
