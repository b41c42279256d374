import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf } from '../kysely.ts';
import type { CheckoutRow } from './lifecycle.ts';

/** The merchant's list of its checkouts (GET /checkouts). */

export interface CheckoutFilter {
  organizationId: string;
  status?: CheckoutRow['status'];
  productId?: string;
  customerId?: string;
}

const SORTABLE = ['createdAt', 'expiresAt', 'amount', 'id'] as const;

/** A page of the checkouts `filter` keeps (sorted by `orderBy`'s properties, in its order), and how many there are. */
export async function listCheckouts(
  em: EntityManager,
  filter: CheckoutFilter,
  page: { orderBy: Record<string, 'asc' | 'desc'>; limit: number; offset: number },
): Promise<{ checkouts: CheckoutRow[]; total: number }> {
  let where = kyselyOf(em).selectFrom('checkouts').where('organizationId', '=', filter.organizationId);
  if (filter.status !== undefined) where = where.where('status', '=', filter.status);
  if (filter.productId !== undefined) where = where.where('productId', '=', filter.productId);
  if (filter.customerId !== undefined) where = where.where('customerId', '=', filter.customerId);
  let list = where.selectAll();
  for (const [property, direction] of Object.entries(page.orderBy)) {
    const column = SORTABLE.find((c) => c === property);
    if (column) list = list.orderBy(column, direction);
  }
  const [checkouts, count] = await Promise.all([
    list.limit(page.limit).offset(page.offset).execute(),
    where.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { checkouts, total: Number(count.n) };
}
