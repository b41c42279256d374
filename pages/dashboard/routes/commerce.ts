import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { CustomerRecord } from '../../../use-cases/schemas/customers.ts';
import type { ProductBody } from '../../../api/schemas/catalog.ts';
import type { ApiAnswer } from '../api-client.ts';
import { noNames, type CommerceContext, type ListPage, type Names } from '../commerce.ts';
import type { Section } from '../layout.ts';
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

/** A list read from the API (a page of PAGE_SIZE): its page, or the API's refusal of the query. */
export async function readList<T>(
  visit: MemberVisit,
  path: string,
  query: Record<string, string | number | undefined>,
): Promise<{ list: ListPage<T> | null; refusal: ApiAnswer | null }> {
  const answer = await visit.api.asMember<ListPage<T>>('GET', path, { query: { limit: PAGE_SIZE, ...query } });
  return answer.status === 200 ? { list: answer.body, refusal: null } : { list: null, refusal: answer };
}

/**
 * The customers' e-mails and the products' names of the ids a page shows: the API's own records, read
 * once per id (a customer deleted since is shown by its id).
 */
export async function namesOf(visit: MemberVisit, ids: { customers?: string[]; products?: string[] }): Promise<Names> {
  const read = async <T, V>(path: string, list: string[] = [], pick: (body: T) => V) =>
    new Map(
      await Promise.all(
        [...new Set(list)].map(async (id) => {
          const answer = await visit.api.asMember<T>('GET', `${path}/${encodeURIComponent(id)}`);
          return [id, answer.status === 200 ? pick(answer.body) : null] as const;
        }),
      ),
    );
  const [customers, products] = await Promise.all([
    read<CustomerRecord, { email: string; name: string | null }>('/api/v1/customers', ids.customers, (c) => ({
      email: c.email,
      name: c.name,
    })),
    read<ProductBody, string>('/api/v1/products', ids.products, (p) => p.name),
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
 * refusal (404 for another organization's record, as the API answers).
 */
export async function readRecord<T>(
  reply: FastifyReply,
  visit: MemberVisit,
  section: Section,
  path: string,
): Promise<T | null> {
  const answer = await visit.api.asMember<T>('GET', path);
  if (answer.status === 200) return answer.body;
  await sendSection(
    reply,
    visit,
    section,
    { title: answer.status === 404 ? 'Not found' : 'Refused', notice: refusalNotice(answer), children: null },
    answer.status,
  );
  return null;
}
