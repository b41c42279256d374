import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Notice } from '../layout.ts';
import { productPath } from '../product.ts';
import { PRODUCT_FILTERS, productListContent, type ProductListView } from '../products.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { catalogMessages } from '../messages-catalog.ts';
import { priceBody, priceForm, problemNotice } from './catalog-forms.ts';
import { organizationParams, pageNumberOf } from './forms.ts';
import { refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const listQuery = z.object({
  show: z.string().max(20).optional(),
  query: z.string().max(256).optional(),
  page: z.string().max(10).optional(),
});
const createForm = priceForm.extend({
  name: z.string().max(300).optional(),
  description: z.string().max(20_000).optional(),
});
type ListQuery = z.infer<typeof listQuery>;
const PAGE_SIZE = 25;
/** The list's filter as the API's query takes it (a boolean in a query is its text). */
const IS_ARCHIVED: Record<string, 'true' | 'false' | undefined> = { active: 'false', archived: 'true', all: undefined };

type ListPage = (
  reply: FastifyReply,
  visit: MemberVisit,
  query: ListQuery,
  extra?: Pick<ProductListView, 'values' | 'invalid'> & { notice?: Notice | null },
  status?: number,
) => Promise<FastifyReply>;

/** Products (spec, Products): the list and the creation of a product with its first price. */
export function productListRoutes(app: RouteApp, deps: RouteDeps): void {
  const page: ListPage = async (reply, visit, query, extra = {}, status = 200) => {
    const show = PRODUCT_FILTERS.some((f) => f === query.show) ? query.show! : 'active';
    const pageNumber = pageNumberOf(query.page);
    const list = await visit.api.member.GET('/api/v1/products', {
      params: { query: { is_archived: IS_ARCHIVED[show], query: query.query, page: pageNumber, limit: PAGE_SIZE } },
    });
    return sendSection(
      reply,
      visit,
      'products',
      {
        title: catalogMessages(visit.locale).products.title,
        notice: list.data ? (extra.notice ?? null) : refusalNotice(list, visit.locale),
        children: productListContent({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          products: list.data
            ? { items: list.data.items, page: pageNumber, maxPage: list.data.pagination.max_page }
            : null,
          filter: { show, query: query.query },
          values: extra.values,
          invalid: extra.invalid,
        }),
      },
      list.data ? status : list.response.status,
    );
  };

  app.get(
    '/dashboard/:organization_id/products',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      return page(reply, visit, request.query);
    },
  );

  app.post(
    '/dashboard/:organization_id/products',
    { schema: { hide: true, params: organizationParams, body: createForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const form = request.body ?? {};
      const price = priceBody(form, visit.locale);
      if ('problem' in price) {
        const notice = problemNotice(price.problem, visit.locale);
        const extra = { values: form, invalid: price.problem.field, notice };
        return page(reply, visit, {}, extra, 400);
      }
      const created = await visit.api.member.POST('/api/v1/products', {
        body: {
          organization_id: visit.organization.id,
          name: form.name ?? '',
          ...(form.description?.trim() ? { description: form.description } : {}),
          prices: [price.price],
        },
      });
      if (!created.data) {
        return page(
          reply,
          visit,
          {},
          { values: form, notice: refusalNotice(created, visit.locale) },
          created.response.status,
        );
      }
      return reply.redirect(`${productPath(visit.organization.id, created.data.id)}?done=created`, 303);
    },
  );
}
