import type { EntityManager } from '@mikro-orm/postgresql';
import { CUSTOMER_SEARCH_FIELDS } from '../../domain/customer-search.ts';
import { kyselyOf } from '../kysely.ts';

/**
 * The ids of the organization's customers a search pattern matches (domain/customer-search.ts), as a
 * subquery the sales list (db/sale/lists.ts) filters by, in one statement. Deleted customers are kept:
 * their sales still name them.
 */
export function customerIdsMatching(em: EntityManager, organizationId: string, pattern: string) {
  return kyselyOf(em)
    .selectFrom('customers')
    .select('id')
    .where('organizationId', '=', organizationId)
    .where((eb) => eb.or(CUSTOMER_SEARCH_FIELDS.map((field) => eb(field, 'ilike', pattern))));
}
