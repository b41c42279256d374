import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the refund's workflow reads of its refund. */

/** The refund, or null; `lock`ed until the transaction ends when asked (the settling's lock order: refund first). */
export async function findRefund(em: EntityManager, refundId: string, lock = false) {
  const row = await kyselyOf(em)
    .selectFrom('refunds')
    .selectAll()
    .where('id', '=', refundId)
    .$if(lock, (query) => query.forUpdate())
    .executeTakeFirst();
  return row ?? null;
}
