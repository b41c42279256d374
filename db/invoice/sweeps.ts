import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf, sql } from '../kysely.ts';
import type { SweepPageInput } from '../../contracts/sweep.ts';

/**
 * A page of the pending extra-charge invoices the periodic sweep (activities/sweeps.ts) starts the
 * workflows of, after the last id of the page before (null: from the first), in the order of their ids,
 * with what their workflow's input needs of them (their subscription's customer and gateway id are the
 * subscription object's: db/subscription/invoice-reads.ts). The `where` is the predicate of the partial
 * index `subscription_invoices_pending_idx` (migration 0016), as a literal so that the index serves any
 * plan (test/workflow/sweep.test.ts explains the statement). Returned unexecuted, for that check.
 */
export function pendingInvoicesPage(em: EntityManager, { after, limit }: SweepPageInput) {
  return kyselyOf(em)
    .selectFrom('subscription_invoices')
    .select([
      'id',
      'organizationId',
      'subscriptionId',
      'gatewayInvoiceId',
      'amount',
      'currency',
      'description',
      'dueDate',
      'expirationDate',
      'noFeesInstallments',
      'createdAt',
    ])
    .where('status', '=', sql.lit('pending'))
    .$if(after !== null, (q) => q.where('id', '>', after!))
    .orderBy('id')
    .limit(limit);
}
