import type { EntityManager } from '@mikro-orm/postgresql';
import { periodsOf, type MetricsFilters } from '../metric-periods.ts';
import { kyselyOf, sql } from '../kysely.ts';
import type { CheckoutPeriodCounts } from '../../domain/metrics.ts';

/**
 * The organization's checkouts counted per period (the periods of `bounds`, in order), each period an
 * index-only range scan of checkouts_org_created_idx. Renewal checkouts are opened by us, not by a
 * buyer: they are no part of the conversion. One row of arrays, as salesPerPeriod's (db/sale/metrics.ts).
 */
export async function checkoutsPerPeriod(
  em: EntityManager,
  f: MetricsFilters,
  bounds: readonly string[],
): Promise<CheckoutPeriodCounts[]> {
  const { productId, customerId } = f;
  const row = await kyselyOf(em)
    .selectFrom(periodsOf(bounds).as('p'))
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('checkouts as c')
          .select([
            sql<string>`count(*)`.as('checkouts'),
            sql<string>`count(*) filter (where c.status = 'succeeded')`.as('succeededCheckouts'),
          ])
          .where('c.organizationId', '=', f.organizationId)
          .whereRef('c.createdAt', '>=', 'p.start_at')
          .whereRef('c.createdAt', '<', 'p.end_at')
          .where('c.renewalPeriod', 'is', null)
          .where(sql<boolean>`c.currency in (${f.currency}, lower(${f.currency}))`)
          .$call((qb) => (productId === null ? qb : qb.where('c.productId', '=', productId)))
          .$call((qb) => (customerId === null ? qb : qb.where('c.customerId', '=', customerId)))
          .as('cs'),
      (join) => join.onTrue(),
    )
    .select([
      sql<string[]>`array_agg(cs.checkouts::bigint order by p.n)`.as('checkouts'),
      sql<string[]>`array_agg(cs."succeededCheckouts"::bigint order by p.n)`.as('succeededCheckouts'),
    ])
    .executeTakeFirstOrThrow();
  return row.checkouts.map((checkouts, i) => ({
    checkouts: Number(checkouts),
    succeededCheckouts: Number(row.succeededCheckouts[i]),
  }));
}
