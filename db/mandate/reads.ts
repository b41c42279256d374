import type { EntityManager } from '@mikro-orm/postgresql';
import type { MandateStatus } from '../../domain/pix-automatico.ts';
import { kyselyOf } from '../kysely.ts';
import type { MandateRow } from './mandates.ts';

/** The merchant's reads of its mandates (GET /mandates, GET /mandates/{id}): organization-scoped. */

export interface MandateFilter {
  organizationId: string;
  subscriptionId?: string;
  customerId?: string;
  status?: MandateStatus;
}

/** A page: its order (entity property → direction, in that order), size and offset. */
export interface MandatePage {
  orderBy: Record<string, 'asc' | 'desc'>;
  limit: number;
  offset: number;
}

const SORTABLE = ['createdAt', 'id'] as const;
const sortColumn = (property: string) => SORTABLE.find((c) => c === property);

/** A page of the mandates `filter` keeps (in the page's order), and how many there are. */
export async function listMandates(
  em: EntityManager,
  filter: MandateFilter,
  page: MandatePage,
): Promise<{ mandates: MandateRow[]; total: number }> {
  let where = kyselyOf(em).selectFrom('mandates').where('organizationId', '=', filter.organizationId);
  if (filter.subscriptionId !== undefined) where = where.where('subscriptionId', '=', filter.subscriptionId);
  if (filter.customerId !== undefined) where = where.where('customerId', '=', filter.customerId);
  if (filter.status !== undefined) where = where.where('status', '=', filter.status);
  let list = where.selectAll();
  for (const [property, direction] of Object.entries(page.orderBy)) {
    const column = sortColumn(property);
    if (column) list = list.orderBy(column, direction);
  }
  const [mandates, count] = await Promise.all([
    list.limit(page.limit).offset(page.offset).execute(),
    where.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { mandates, total: Number(count.n) };
}

/** The organization's mandate by id; null when it is unknown or another organization's. */
export async function ownMandate(em: EntityManager, organizationId: string, id: string): Promise<MandateRow | null> {
  const row = await kyselyOf(em)
    .selectFrom('mandates')
    .selectAll()
    .where('id', '=', id)
    .where('organizationId', '=', organizationId)
    .executeTakeFirst();
  return row ?? null;
}

/** The gateway's ids of the organization's mandates (the sandbox's bank settles only theirs). */
export async function gatewayMandateIdsOf(em: EntityManager, organizationId: string): Promise<string[]> {
  const rows = await kyselyOf(em)
    .selectFrom('mandates')
    .select('gatewayMandateId')
    .where('organizationId', '=', organizationId)
    .execute();
  return rows.map((row) => row.gatewayMandateId);
}
