import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf, sql } from '../kysely.ts';
import { AWAITING_PAYMENT, PAYMENT_IN_FLIGHT } from './lost-run-reads.ts';
import type { SweepPageInput } from '../../contracts/sweep.ts';

/**
 * A page of the checkouts the periodic sweep (activities/sweeps.ts) starts the workflows of: open ones,
 * and confirmed ones waiting for their pix or boleto or for a payment answer a lost run never recorded;
 * after the last id of the page before (null: from the first), in the order of their ids. The `where`
 * implies the predicate of the partial index `checkouts_unsettled_idx` (migration 0016), so a sweep reads
 * only the unsettled rows (test/workflow/sweep.test.ts explains the statement). Returned unexecuted,
 * for that check.
 */
export function unsettledCheckoutsPage(em: EntityManager, { after, limit }: SweepPageInput) {
  return kyselyOf(em)
    .selectFrom('checkouts')
    .select(['id', 'organizationId', 'workflowId', 'status', 'expiresAt'])
    .where(sql<boolean>`(status = 'open' or (${sql.raw(AWAITING_PAYMENT)}) or (${sql.raw(PAYMENT_IN_FLIGHT)}))`)
    .$if(after !== null, (q) => q.where('id', '>', after!))
    .orderBy('id')
    .limit(limit);
}
