import type { EntityManager } from '@mikro-orm/postgresql';
import { periodsOf, type MetricsFilters } from '../metric-periods.ts';
import { kyselyOf, sql } from '../kysely.ts';
import type { SalePeriodSums } from '../../domain/metrics.ts';

/**
 * The organization's sales summed per period (the periods of `bounds`, in order), each period a
 * range scan of (organization_id, created_at) between its instants: no row's time is converted to
 * the local zone, nothing is sorted or hashed, and the work follows the rows in the range (an
 * index-only scan of sales_org_created_idx). Refunds and lost disputes (chargebacks) count with their
 * sale, in its period: net revenue is what the sales of a period kept. A sale's disputes are looked up
 * by disputes_sale_idx (decision 0072). The periods come back as one row of arrays: MikroORM's
 * plugin converts each row against every property of the tables a statement names, which cost 7 ms
 * for a year by day (bench/metrics.ts).
 */
export async function salesPerPeriod(
  em: EntityManager,
  f: MetricsFilters,
  bounds: readonly string[],
): Promise<SalePeriodSums[]> {
  const { productId, customerId } = f;
  const row = await kyselyOf(em)
    .selectFrom(periodsOf(bounds).as('p'))
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('sales as s')
          .select([
            sql<string>`coalesce(sum(s.amount), 0)`.as('revenue'),
            sql<string>`coalesce(sum(s.refunded_amount), 0)`.as('refunds'),
            sql<string>`count(*) filter (where s.amount > 0)`.as('salesCount'),
            sql<string>`count(*) filter (where s.refunded_amount > 0)`.as('refundedSalesCount'),
            sql<string>`coalesce(sum(s.charged_back_amount), 0)`.as('chargebacks'),
            sql<string>`count(*) filter (where exists (select from disputes d where d.sale_id = s.id))`.as(
              'disputedSalesCount',
            ),
          ])
          .where('s.organizationId', '=', f.organizationId)
          .whereRef('s.createdAt', '>=', 'p.start_at')
          .whereRef('s.createdAt', '<', 'p.end_at')
          .where(sql<boolean>`s.currency in (${f.currency}, lower(${f.currency}))`)
          .$call((qb) => (productId === null ? qb : qb.where('s.productId', '=', productId)))
          .$call((qb) => (customerId === null ? qb : qb.where('s.customerId', '=', customerId)))
          .as('ss'),
      (join) => join.onTrue(),
    )
    .select([
      sql<string[]>`array_agg(ss.revenue::bigint order by p.n)`.as('revenue'),
      sql<string[]>`array_agg(ss.refunds::bigint order by p.n)`.as('refunds'),
      sql<string[]>`array_agg(ss."salesCount"::bigint order by p.n)`.as('salesCount'),
      sql<string[]>`array_agg(ss."refundedSalesCount"::bigint order by p.n)`.as('refundedSalesCount'),
      sql<string[]>`array_agg(ss.chargebacks::bigint order by p.n)`.as('chargebacks'),
      sql<string[]>`array_agg(ss."disputedSalesCount"::bigint order by p.n)`.as('disputedSalesCount'),
    ])
    .executeTakeFirstOrThrow();
  return row.revenue.map((revenue, i) => ({
    revenue: Number(revenue),
    refunds: Number(row.refunds[i]),
    salesCount: Number(row.salesCount[i]),
    refundedSalesCount: Number(row.refundedSalesCount[i]),
    chargebacks: Number(row.chargebacks[i]),
    disputedSalesCount: Number(row.disputedSalesCount[i]),
  }));
}
