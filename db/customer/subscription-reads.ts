import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';

/** What the subscription object reads of its customers. */

/**
 * The organization's customer holding `externalId` (the one GET /customers/external/<id> answers
 * with: a deleted one no longer holds the id).
 */
export async function customerIdByExternalId(
  em: EntityManager,
  organizationId: string,
  externalId: string,
): Promise<string | null> {
  const row = await kyselyOf(em)
    .selectFrom('customers')
    .select('id')
    .where('organizationId', '=', organizationId)
    .where('externalId', '=', externalId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return row?.id ?? null;
}
