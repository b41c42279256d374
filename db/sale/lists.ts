import type { EntityManager } from '@mikro-orm/postgresql';
import { customerIdsMatching } from '../customer/sale-searches.ts';
import { kyselyOf, type Selectable, type Database } from '../kysely.ts';

/** The merchant's lists of its sales and refunds (GET /sales, GET /refunds). */

type SaleRow = Selectable<Database['sales']>;
type RefundRow = Selectable<Database['refunds']>;

/** A page: its order (entity property → direction, in that order), size and offset. */
export interface ListPage {
  orderBy: Record<string, 'asc' | 'desc'>;
  limit: number;
  offset: number;
}

const SORTABLE = ['createdAt', 'amount', 'id'] as const;
const sortColumn = (property: string) => SORTABLE.find((c) => c === property);

export interface SaleFilter {
  organizationId: string;
  customerId?: string;
  productId?: string;
  subscriptionId?: string;
  status?: SaleRow['status'];
  /** An ILIKE pattern of the customer's e-mail or name (domain/customer-search.ts). */
  customerPattern?: string;
}

/** The ids of a page of the sales `filter` keeps (in the page's order), and how many there are. */
export async function listSales(
  em: EntityManager,
  filter: SaleFilter,
  page: ListPage,
): Promise<{ ids: string[]; total: number }> {
  let where = kyselyOf(em).selectFrom('sales').where('organizationId', '=', filter.organizationId);
  if (filter.customerId !== undefined) where = where.where('customerId', '=', filter.customerId);
  if (filter.productId !== undefined) where = where.where('productId', '=', filter.productId);
  if (filter.subscriptionId !== undefined) where = where.where('subscriptionId', '=', filter.subscriptionId);
  if (filter.status !== undefined) where = where.where('status', '=', filter.status);
  if (filter.customerPattern !== undefined) {
    const customers = customerIdsMatching(em, filter.organizationId, filter.customerPattern);
    where = where.where('customerId', 'in', customers);
  }
  let list = where.select('id');
  for (const [property, direction] of Object.entries(page.orderBy)) {
    const column = sortColumn(property);
    if (column) list = list.orderBy(column, direction);
  }
  const [rows, count] = await Promise.all([
    list.limit(page.limit).offset(page.offset).execute(),
    where.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { ids: rows.map((r) => r.id), total: Number(count.n) };
}

export interface RefundFilter {
  organizationId: string;
  saleId?: string;
}

/** A page of the refunds `filter` keeps (in the page's order), and how many there are. */
export async function listRefunds(
  em: EntityManager,
  filter: RefundFilter,
  page: ListPage,
): Promise<{ refunds: RefundRow[]; total: number }> {
  let where = kyselyOf(em).selectFrom('refunds').where('organizationId', '=', filter.organizationId);
  if (filter.saleId !== undefined) where = where.where('saleId', '=', filter.saleId);
  let list = where.selectAll();
  for (const [property, direction] of Object.entries(page.orderBy)) {
    const column = sortColumn(property);
    if (column) list = list.orderBy(column, direction);
  }
  const [refunds, count] = await Promise.all([
    list.limit(page.limit).offset(page.offset).execute(),
    where.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { refunds, total: Number(count.n) };
}
