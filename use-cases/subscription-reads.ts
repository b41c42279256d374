import type { FilterQuery, InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Subscription, SubscriptionCharge } from '../db/entities/index.ts';
import { notFound } from './errors.ts';
import { isUuid } from './schemas/common.ts';

type SubscriptionEntity = InferEntity<typeof Subscription>;

/**
 * A subscription that `scope` allows (the merchant's organization, or the portal's customer too) and
 * its renewal timeline, oldest try first; a 404 for any other id, malformed ones included.
 */
export async function subscriptionWithCharges(
  em: EntityManager,
  id: string,
  scope: FilterQuery<SubscriptionEntity> & object,
): Promise<{ subscription: SubscriptionEntity; charges: InferEntity<typeof SubscriptionCharge>[] }> {
  const subscription = isUuid(id) ? await em.findOne(Subscription, { ...scope, id }) : null;
  if (!subscription) throw notFound('Subscription');
  const charges = await em.find(
    SubscriptionCharge,
    { subscriptionId: id },
    { orderBy: { attemptedAt: 'asc', periodNumber: 'asc', tryNumber: 'asc' } },
  );
  return { subscription, charges };
}
