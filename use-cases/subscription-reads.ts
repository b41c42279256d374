import type { EntityManager } from '@mikro-orm/postgresql';
import { chargesOf } from '../db/subscription/charges.ts';
import type { SubscriptionChargeRow, SubscriptionRow } from '../db/subscription/record.ts';
import { findOwnSubscription } from '../db/subscription/rows.ts';
import { notFound } from './errors.ts';
import { isUuid } from './schemas/common.ts';

/**
 * A subscription that `scope` allows (the merchant's organization, or the portal's customer too) and
 * its renewal timeline, oldest try first; a 404 for any other id, malformed ones included.
 */
export async function subscriptionWithCharges(
  em: EntityManager,
  id: string,
  scope: { organizationId: string; customerId?: string },
): Promise<{ subscription: SubscriptionRow; charges: SubscriptionChargeRow[] }> {
  const subscription = isUuid(id) ? await findOwnSubscription(em, scope, id) : null;
  if (!subscription) throw notFound('Subscription');
  return { subscription, charges: await chargesOf(em, id) };
}
