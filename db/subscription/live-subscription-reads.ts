import type { EntityManager } from '@mikro-orm/postgresql';
import { isLive, SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';
import { kyselyOf } from '../kysely.ts';

/** For the customer object's one-subscription-per-customer check (db/customer/checkout-customers.ts). */

const LIVE_STATUSES = SUBSCRIPTION_STATUSES.filter(isLive);

/** Whether the customer has a live subscription (neither canceled nor incomplete) of the organization. */
export async function hasLiveSubscription(
  em: EntityManager,
  organizationId: string,
  customerId: string,
): Promise<boolean> {
  const row = await kyselyOf(em)
    .selectFrom('subscriptions')
    .select('id')
    .where('organizationId', '=', organizationId)
    .where('customerId', '=', customerId)
    .where('status', 'in', LIVE_STATUSES)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
