import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, kyselyOf } from '../kysely.ts';

/** What the checkout's confirmation reads of the catalog. */

/** The organization's (undeleted) discount whose code is `code`, in any case; undefined when none. */
export async function discountByCode(em: EntityManager, organizationId: string, code: string) {
  return kyselyOf(em)
    .selectFrom('discounts')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where(sql`upper(code)`, '=', sql`upper(${code})`)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
}
