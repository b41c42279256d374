import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/**
 * What the periodic sweep's pending invoices (db/invoice/sweeps.ts) need of their subscriptions to
 * start their workflows again: the customer and the gateway's subscription id, by subscription id.
 */
export async function invoiceSubscriptions(em: EntityManager, subscriptionIds: readonly string[]) {
  const ids = [...new Set(subscriptionIds)];
  const rows =
    ids.length === 0
      ? []
      : await kyselyOf(em)
          .selectFrom('subscriptions')
          .select(['id', 'customerId', 'gatewaySubscriptionId'])
          .where('id', 'in', ids)
          .execute();
  return new Map(rows.map((row) => [row.id, row]));
}
