import type { EntityManager } from '@mikro-orm/postgresql';
import { isLive, SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';
import { kyselyOf } from '../kysely.ts';
import type { SubscriptionRow } from './record.ts';

/** Lists of an organization's subscriptions (the merchant's, or a portal customer's own). */

export interface SubscriptionFilter {
  organizationId: string;
  customerId?: string;
  productId?: string;
  /** Any of these statuses. */
  statuses?: readonly SubscriptionRow['status'][];
}

const SORTABLE = ['createdAt', 'currentPeriodEnd', 'amount', 'id'] as const;

/** A page of the subscriptions `filter` keeps (sorted by `orderBy`'s properties, in its order), and how many there are. */
export async function listSubscriptions(
  em: EntityManager,
  filter: SubscriptionFilter,
  page: { orderBy: Record<string, 'asc' | 'desc'>; limit: number; offset: number },
): Promise<{ subscriptions: SubscriptionRow[]; total: number }> {
  let where = kyselyOf(em).selectFrom('subscriptions').where('organizationId', '=', filter.organizationId);
  if (filter.customerId !== undefined) where = where.where('customerId', '=', filter.customerId);
  if (filter.productId !== undefined) where = where.where('productId', '=', filter.productId);
  if (filter.statuses !== undefined) where = where.where('status', 'in', [...filter.statuses]);
  let list = where.selectAll();
  for (const [property, direction] of Object.entries(page.orderBy)) {
    const column = SORTABLE.find((c) => c === property);
    if (column) list = list.orderBy(column, direction);
  }
  const [subscriptions, count] = await Promise.all([
    list.limit(page.limit).offset(page.offset).execute(),
    where.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { subscriptions, total: Number(count.n) };
}

/**
 * Whether the customer has a live subscription (neither canceled nor incomplete) of the organization
 * (db/customer/checkout-customers.ts's limit of one subscription per customer asks it).
 */
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
    .where('status', 'in', SUBSCRIPTION_STATUSES.filter(isLive))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
