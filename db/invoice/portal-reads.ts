import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';
import type { InvoiceRow } from './records.ts';

/** What the customer portal's pages read of the invoices. */

/** The latest 50 invoices of these subscriptions of the organization, newest first. */
export async function invoicesOfSubscriptions(
  em: EntityManager,
  organizationId: string,
  subscriptionIds: readonly string[],
): Promise<InvoiceRow[]> {
  if (subscriptionIds.length === 0) return [];
  return kyselyOf(em)
    .selectFrom('subscription_invoices')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('subscriptionId', 'in', [...subscriptionIds])
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(50)
    .execute();
}
