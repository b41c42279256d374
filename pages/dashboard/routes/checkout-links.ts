import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { archiveLinkConfirmation, checkoutLinksContent, type CheckoutLinksView } from '../checkout-links.ts';
import type { ApiAnswer, ApiClient } from '../api-client.ts';
import type { Notice } from '../layout.ts';
import { dashboardPaths } from '../paths.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { organizationParams, pageNumberOf } from './forms.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const linkParams = organizationParams.extend({ id: z.string().max(64) });
const csrfOnly = z.object({ csrf: z.string().max(200).optional() });
const createForm = csrfOnly.extend({
  product_id: z.string().max(64).optional(),
  label: z.string().max(300).optional(),
  success_url: z.string().max(2100).optional(),
  cancel_url: z.string().max(2100).optional(),
  allow_discount_codes: z.string().max(10).optional(),
  discount_id: z.string().max(64).optional(),
});
const listQuery = z.object({ done: z.string().max(20).optional(), page: z.string().max(10).optional() });

const SECTION = 'checkout-links';
const DONE = { created: 'Link created.', archived: 'The link is archived.', restored: 'The link is restored.' };
const byId = (id: string) => ({ params: { path: { id } } });
const blankless = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);

/** What the page shows besides the links: the products (names, and those a link may sell) and the discounts. */
async function catalogOf(visit: MemberVisit) {
  const [products, sellable, discounts] = await Promise.all([
    visit.api.member.GET('/api/v1/products', { params: { query: { limit: 100, sorting: 'name' } } }),
    visit.api.member.GET('/api/v1/products', {
      params: { query: { limit: 100, sorting: 'name', is_archived: 'false' } },
    }),
    visit.api.member.GET('/api/v1/discounts', { params: { query: { limit: 100, sorting: 'name' } } }),
  ]);
  return {
    products: products.data?.items ?? [],
    sellable: sellable.data?.items ?? [],
    discounts: discounts.data?.items ?? [],
  };
}

type LinksPage = (
  reply: FastifyReply,
  visit: MemberVisit,
  extra?: Pick<CheckoutLinksView, 'values'> & { notice?: Notice | null; page?: number },
  status?: number,
) => Promise<FastifyReply>;

const linksPage: LinksPage = async (reply, visit, extra = {}, status = 200) => {
  const page = extra.page ?? 1;
  const [active, archived, catalog] = await Promise.all([
    visit.api.member.GET('/api/v1/checkout-links', { params: { query: { page } } }),
    visit.api.member.GET('/api/v1/checkout-links', { params: { query: { is_archived: 'true' } } }),
    catalogOf(visit),
  ]);
  const refused = !active.data ? active : !archived.data ? archived : undefined;
  return sendSection(
    reply,
    visit,
    SECTION,
    {
      title: 'Checkout links',
      notice: refused ? refusalNotice(refused, visit.locale) : (extra.notice ?? null),
      children: checkoutLinksContent({
        locale: visit.locale,
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        links:
          !active.data || !archived.data
            ? null
            : {
                active: active.data.items,
                archived: archived.data.items,
                page,
                maxPage: active.data.pagination.max_page,
              },
        ...catalog,
        values: extra.values,
      }),
    },
    refused ? refused.response.status : status,
  );
};

/** Checkout links (spec, Checkout links): the list, creation, archiving behind a confirmation, restoring. */
export function checkoutLinkPageRoutes(app: RouteApp, deps: RouteDeps): void {
  const base = `/dashboard/:organization_id/${SECTION}`;
  const back = (visit: MemberVisit, done: keyof typeof DONE) =>
    `${dashboardPaths.section(visit.organization.id, SECTION)}?done=${done}`;

  app.get(
    base,
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const page = pageNumberOf(request.query.page);
      return linksPage(reply, visit, { notice: doneNotice(request.query.done, DONE), page });
    },
  );

  app.post(base, { schema: { hide: true, params: organizationParams, body: createForm } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const form = request.body ?? {};
    const created = await visit.api.member.POST('/api/v1/checkout-links', {
      body: {
        label: blankless(form.label),
        product_ids: form.product_id ? [form.product_id] : [],
        discount_id: blankless(form.discount_id),
        allow_discount_codes: form.allow_discount_codes === 'true',
        success_url: blankless(form.success_url),
        cancel_url: blankless(form.cancel_url),
      },
    });
    if (!created.data) {
      return linksPage(
        reply,
        visit,
        { values: form, notice: refusalNotice(created, visit.locale) },
        created.response.status,
      );
    }
    return reply.redirect(back(visit, 'created'), 303);
  });

  app.get(`${base}/:id/archive`, { schema: { hide: true, params: linkParams } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const [link, catalog] = await Promise.all([
      visit.api.member.GET('/api/v1/checkout-links/{id}', byId(request.params.id)),
      catalogOf(visit),
    ]);
    if (!link.data) return linksPage(reply, visit, { notice: refusalNotice(link, visit.locale) }, link.response.status);
    if (link.data.is_archived) return reply.redirect(dashboardPaths.section(visit.organization.id, SECTION), 303);
    return sendSection(reply, visit, SECTION, {
      title: 'Archive this link?',
      children: archiveLinkConfirmation({
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        link: link.data,
        products: catalog.products,
      }),
    });
  });

  const change = (done: 'archived' | 'restored', call: (api: ApiClient, id: string) => Promise<ApiAnswer>) =>
    app.post(
      `${base}/:id/${done === 'archived' ? 'archive' : 'restore'}`,
      { schema: { hide: true, params: linkParams, body: csrfOnly } },
      async (request, reply) => {
        const visit = await sectionVisit(app, deps, request, reply);
        if (!visit) return reply;
        const answer = await call(visit.api.member, request.params.id);
        const status = answer.response.status;
        if (status >= 300) return linksPage(reply, visit, { notice: refusalNotice(answer, visit.locale) }, status);
        return reply.redirect(back(visit, done), 303);
      },
    );
  change('archived', (api, id) => api.DELETE('/api/v1/checkout-links/{id}', byId(id)));
  change('restored', (api, id) =>
    api.PATCH('/api/v1/checkout-links/{id}', { ...byId(id), body: { is_archived: false } }),
  );
}
