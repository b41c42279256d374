import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ApiAnswer } from '../api-client.ts';
import { noNames, type CommerceContext, type ListPage, type Names } from '../commerce.ts';
import type { Section } from '../layout.ts';
import { commerceMessages } from '../messages-commerce.ts';
import { organizationParams } from './forms.ts';
import { refusalNotice, sendSection, type MemberVisit } from './visit.ts';

/** What the commerce sections' routes share: list queries, the names beside ids, a record's params. */

/** Rows per page of a section's list. */
export const PAGE_SIZE = 20;

export const recordParams = organizationParams.extend({ id: z.string().max(64) });
export const csrfOnly = z.object({ csrf: z.string().max(200).optional() });

/** A list's query: any text is accepted here; the API says what it refuses. */
const filter = z.string().max(320).optional();
export const listQuery = z.object({
  page: z.string().max(10).optional(),
  status: filter,
  customer_id: filter,
  subscription_id: filter,
  query: filter,
  done: z.string().max(20).optional(),
});

/** `?page=` as a page number: 1 unless it is one. */
export { pageNumberOf as pageNumber } from './forms.ts';

/** A list call's parameters: a page of PAGE_SIZE, with these filters. */
export const listParams = <Q extends object>(query: Q) => ({ params: { query: { limit: PAGE_SIZE, ...query } } });
/** A record call's parameters. */
export const byId = (id: string) => ({ params: { path: { id } } });

/** A list read from the API: its page, or the API's refusal of the query. */
export async function readList<T>(
  call: Promise<ApiAnswer & { data?: ListPage<T> }>,
): Promise<{ list: ListPage<T> | null; refusal: ApiAnswer | null }> {
  const answer = await call;
  return answer.data ? { list: answer.data, refusal: null } : { list: null, refusal: answer };
}

/**
 * The customers' e-mails and the products' names of the ids a page shows: the API's own records, read
 * once per id (a customer deleted since is shown by its id).
 */
export async function namesOf(visit: MemberVisit, ids: { customers?: string[]; products?: string[] }): Promise<Names> {
  const read = async <T, V>(list: string[] = [], call: (id: string) => Promise<{ data?: T }>, pick: (body: T) => V) =>
    new Map(
      await Promise.all(
        [...new Set(list)].map(async (id) => {
          const answer = await call(id);
          return [id, answer.data ? pick(answer.data) : null] as const;
        }),
      ),
    );
  const [customers, products] = await Promise.all([
    read(
      ids.customers,
      (id) => visit.api.member.GET('/api/v1/customers/{id}', byId(id)),
      (c) => ({ email: c.email, name: c.name }),
    ),
    read(
      ids.products,
      (id) => visit.api.member.GET('/api/v1/products/{id}', byId(id)),
      (p) => p.name,
    ),
  ]);
  return { customers, products };
}

/** What a commerce page's pieces need of the visit (pages/dashboard/commerce.ts). */
export const commerceContext = (visit: MemberVisit, names: Names = noNames()): CommerceContext => ({
  locale: visit.locale,
  organizationId: visit.organization.id,
  csrf: visit.csrf,
  names,
});

/**
 * One record read from the API for a section's page, or null once the page is sent with the API's
 * refusal (404 for another organization's record, as the API answers), titled `title` when the
 * section has its own words, else "not found" or "refused".
 */
export async function readRecord<T>(
  reply: FastifyReply,
  visit: MemberVisit,
  section: Section,
  call: Promise<ApiAnswer & { data?: T }>,
  title?: string,
): Promise<T | null> {
  const answer = await call;
  if (answer.data) return answer.data;
  const status = answer.response.status;
  const t = commerceMessages(visit.locale).generic;
  title ??= status === 404 ? t.notFound : t.refused;
  await sendSection(
    reply,
    visit,
    section,
    { title, notice: refusalNotice(answer, visit.locale), children: null },
    status,
  );
  return null;
}
