import type { EntityManager } from '@mikro-orm/postgresql';
import { pricePeriodOf } from '../catalog/subscription-reads.ts';
import type { PeriodInterval } from '../../domain/periods.ts';
import type { SubscriptionRow } from './record.ts';
import { findSubscription } from './rows.ts';

/** The subscription's row and its price's period: what its renewals and changes are computed from. */
export type SubscriptionTerms = SubscriptionRow & { interval: PeriodInterval; intervalCount: number | null };

/**
 * The subscription's terms; `lock` holds its row until the transaction ends. Null for an unknown
 * subscription (its price, recurring, is never deleted from under it).
 */
export async function subscriptionTerms(
  em: EntityManager,
  subscriptionId: string,
  options: { lock?: boolean } = {},
): Promise<SubscriptionTerms | null> {
  const row = await findSubscription(em, subscriptionId, options);
  if (!row) return null;
  const period = await pricePeriodOf(em, row.priceId);
  return period ? { ...row, ...period } : null;
}
