import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** Refunds that gave money back in the window (settled then), of one organization or all (decision 0073). */
export async function succeededRefundsIn(
  em: EntityManager,
  window: { from: Date; to: Date },
  organizationId: string | null,
) {
  return kyselyOf(em)
    .selectFrom('refunds')
    .select(['organizationId', 'transactionId', 'amount'])
    .where('status', '=', 'succeeded')
    .where('updatedAt', '>=', window.from)
    .where('updatedAt', '<', window.to)
    .$if(organizationId !== null, (q) => q.where('organizationId', '=', organizationId!))
    .orderBy('id')
    .execute();
}
