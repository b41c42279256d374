import type { InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sale } from '../entities/payments.ts';
import { kyselyOf } from '../kysely.ts';

/** What the customer portal's pages read of the sales. */

export type SaleRow = InferEntity<typeof Sale>;

/** The customer's latest 50 purchases in the organization, newest first. */
export async function customerSales(em: EntityManager, organizationId: string, customerId: string): Promise<SaleRow[]> {
  return kyselyOf(em)
    .selectFrom('sales')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('customerId', '=', customerId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(50)
    .execute();
}

/** Every sale of the subscription (its first checkout's, renewals, plan changes, extra charges), oldest first. */
export async function subscriptionSales(
  em: EntityManager,
  organizationId: string,
  subscriptionId: string,
): Promise<SaleRow[]> {
  return kyselyOf(em)
    .selectFrom('sales')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('subscriptionId', '=', subscriptionId)
    .orderBy('createdAt', 'asc')
    .orderBy('id', 'asc')
    .execute();
}
