import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf, sql } from '../kysely.ts';
import type { SweepPageInput } from '../../contracts/sweep.ts';

/**
 * A page of the live subscriptions the periodic sweep (activities/sweeps.ts) starts the workflows of,
 * after the last id of the page before (null: from the first), in the order of their ids. The `where`
 * is the predicate of the partial index `subscriptions_live_idx` (migration 0016), written as a literal
 * so that the index serves any plan, and a sweep reads only the live rows however many have ended
 * (test/workflow/sweep.test.ts explains the statement). Returned unexecuted, for that check.
 */
export function liveSubscriptionsPage(em: EntityManager, { after, limit }: SweepPageInput) {
  return kyselyOf(em)
    .selectFrom('subscriptions')
    .select(['id', 'organizationId', 'customerId'])
    .where('status', '<>', sql.lit('canceled'))
    .$if(after !== null, (q) => q.where('id', '>', after!))
    .orderBy('id')
    .limit(limit);
}
