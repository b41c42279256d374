import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { deleteDiscountConfirmation, discountsContent, type DiscountsView } from '../discounts.ts';
import type { Notice } from '../layout.ts';
import { dashboardPaths } from '../paths.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { catalogMessages } from '../messages-catalog.ts';
import { discountBody, discountForm, problemNotice } from './catalog-forms.ts';
import { organizationParams, pageNumberOf } from './forms.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const discountParams = organizationParams.extend({ id: z.string().max(64) });
const csrfOnly = z.object({ csrf: z.string().max(200).optional() });
const listQuery = z.object({ done: z.string().max(20).optional(), page: z.string().max(10).optional() });

const SECTION = 'discounts';
const PAGE_SIZE = 50;
const byId = (id: string) => ({ params: { path: { id } } });

type DiscountsPage = (
  reply: FastifyReply,
  visit: MemberVisit,
  extra?: Pick<DiscountsView, 'values' | 'invalid'> & { notice?: Notice | null; page?: number },
  status?: number,
) => Promise<FastifyReply>;

const discountsPage: DiscountsPage = async (reply, visit, extra = {}, status = 200) => {
  const page = extra.page ?? 1;
  const [discounts, products] = await Promise.all([
    visit.api.member.GET('/api/v1/discounts', { params: { query: { page, limit: PAGE_SIZE } } }),
    visit.api.member.GET('/api/v1/products', { params: { query: { limit: 100, sorting: 'name' } } }),
  ]);
  return sendSection(
    reply,
    visit,
    SECTION,
    {
      title: catalogMessages(visit.locale).discounts.title,
      notice: discounts.data ? (extra.notice ?? null) : refusalNotice(discounts, visit.locale),
      children: discountsContent({
        locale: visit.locale,
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        discounts: discounts.data
          ? { items: discounts.data.items, page, maxPage: discounts.data.pagination.max_page }
          : null,
        products: products.data?.items ?? [],
        values: extra.values,
        invalid: extra.invalid,
      }),
    },
    discounts.data ? status : discounts.response.status,
  );
};

/** Discounts (spec, Discounts): the list, creation, deletion behind a confirmation. */
export function discountPageRoutes(app: RouteApp, deps: RouteDeps): void {
  const base = `/dashboard/:organization_id/${SECTION}`;
  const listPath = (visit: MemberVisit) => dashboardPaths.section(visit.organization.id, SECTION);

  app.get(
    base,
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const page = pageNumberOf(request.query.page);
      const done = catalogMessages(visit.locale).discounts.done;
      return discountsPage(reply, visit, { notice: doneNotice(request.query.done, done), page });
    },
  );

  app.post(base, { schema: { hide: true, params: organizationParams, body: discountForm } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const form = request.body;
    const built = discountBody(form, visit.locale);
    if ('problem' in built) {
      const notice = problemNotice(built.problem, visit.locale);
      const extra = { values: form, invalid: built.problem.field, notice };
      return discountsPage(reply, visit, extra, 400);
    }
    const created = await visit.api.member.POST('/api/v1/discounts', { body: built.discount });
    if (!created.data) {
      const refused = { values: form, notice: refusalNotice(created, visit.locale) };
      return discountsPage(reply, visit, refused, created.response.status);
    }
    return reply.redirect(`${listPath(visit)}?done=created`, 303);
  });

  app.get(`${base}/:id/delete`, { schema: { hide: true, params: discountParams } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const discount = await visit.api.member.GET('/api/v1/discounts/{id}', byId(request.params.id));
    if (!discount.data) {
      return discountsPage(reply, visit, { notice: refusalNotice(discount, visit.locale) }, discount.response.status);
    }
    return sendSection(reply, visit, SECTION, {
      title: catalogMessages(visit.locale).discounts.deleteTitle,
      children: deleteDiscountConfirmation({
        locale: visit.locale,
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        discount: discount.data,
      }),
    });
  });

  app.post(
    `${base}/:id/delete`,
    { schema: { hide: true, params: discountParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const deleted = await visit.api.member.DELETE('/api/v1/discounts/{id}', byId(request.params.id));
      if (deleted.response.status !== 204) {
        return discountsPage(reply, visit, { notice: refusalNotice(deleted, visit.locale) }, deleted.response.status);
      }
      return reply.redirect(`${listPath(visit)}?done=deleted`, 303);
    },
  );
}
