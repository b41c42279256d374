import type { FastifyReply } from 'fastify';
import type { ApiAnswer } from '../api-client.ts';
import type { ListPage } from '../commerce.ts';
import { EXPORT_CAP } from '../record-exports.ts';

/**
 * The sales and customers lists' CSV downloads (decision 0092): every row the list's filters match,
 * read page by page from the API as the list itself is, up to EXPORT_CAP rows.
 */

/** The API's largest page (domain/pagination.ts MAX_PAGE_LIMIT). */
const EXPORT_PAGE = 100;

/**
 * Every row of a list, newest first, a page at a time until the last page or the cap, or the API's
 * refusal of the filters. A row that a sale made during the export pushed onto the next page is kept once.
 */
export async function allRows<T extends { id: string }>(
  read: (page: number, limit: number) => Promise<{ list: ListPage<T> | null; refusal: ApiAnswer | null }>,
): Promise<{ rows: T[] } | { refusal: ApiAnswer }> {
  const rows = new Map<string, T>();
  for (let page = 1; rows.size < EXPORT_CAP; page += 1) {
    const { list, refusal } = await read(page, EXPORT_PAGE);
    if (!list) return { refusal: refusal! };
    for (const row of list.items) if (rows.size < EXPORT_CAP) rows.set(row.id, row);
    if (page >= list.pagination.max_page || list.items.length === 0) break;
  }
  return { rows: [...rows.values()] };
}

/** A CSV file as a download named after what it holds and the day (UTC), e.g. vendas-2026-11-29.csv. */
export function sendCsv(reply: FastifyReply, what: string, csv: string): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${what}-${new Date().toISOString().slice(0, 10)}.csv"`)
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .send(csv);
}
