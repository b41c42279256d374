import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ProductBody } from '../../../api/schemas/catalog.ts';
import type { CheckoutLinkRecord } from '../../../api/schemas/checkout-links.ts';
import type { DiscountRecord } from '../../../api/schemas/discounts.ts';
import { archiveLinkConfirmation, checkoutLinksContent, type CheckoutLinksView } from '../checkout-links.ts';
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

type Page<T> = { items: T[]; pagination: { total_count: number; max_page: number } };

const SECTION = 'checkout-links';
const DONE = { created: 'Link created.', archived: 'The link is archived.', restored: 'The link is restored.' };
const API = '/api/v1/checkout-links/';
const blankless = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);

/** What the page shows besides the links: the products (names, and those a link may sell) and the discounts. */
async function catalogOf(visit: MemberVisit) {
  const [products, sellable, discounts] = await Promise.all([
    visit.api.asMember<Page<ProductBody>>('GET', '/api/v1/products/', { query: { limit: 100, sorting: 'name' } }),
    visit.api.asMember<Page<ProductBody>>('GET', '/api/v1/products/', {
      query: { limit: 100, sorting: 'name', is_archived: false },
    }),
    visit.api.asMember<Page<DiscountRecord>>('GET', '/api/v1/discounts/', { query: { limit: 100, sorting: 'name' } }),
  ]);
  return {
    products: products.status === 200 ? products.body.items : [],
    sellable: sellable.status === 200 ? sellable.body.items : [],
    discounts: discounts.status === 200 ? discounts.body.items : [],
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
    visit.api.asMember<Page<CheckoutLinkRecord>>('GET', API, { query: { page } }),
    visit.api.asMember<Page<CheckoutLinkRecord>>('GET', API, { query: { is_archived: true } }),
    catalogOf(visit),
  ]);
  const refused = [active, archived].find((a) => a.status !== 200);
  return sendSection(
    reply,
    visit,
    SECTION,
    {
      title: 'Checkout links',
      notice: refused ? refusalNotice(refused) : (extra.notice ?? null),
      children: checkoutLinksContent({
        locale: visit.locale,
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        links: refused
          ? null
          : {
              active: active.body.items,
              archived: archived.body.items,
              page,
              maxPage: active.body.pagination.max_page,
            },
        ...catalog,
        values: extra.values,
      }),
    },
    refused ? refused.status : status,
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
    const created = await visit.api.asMember<CheckoutLinkRecord>('POST', API, {
      body: {
        label: blankless(form.label),
        product_ids: form.product_id ? [form.product_id] : [],
        discount_id: blankless(form.discount_id),
        allow_discount_codes: form.allow_discount_codes === 'true',
        success_url: blankless(form.success_url),
        cancel_url: blankless(form.cancel_url),
      },
    });
    if (created.status !== 201) {
      return linksPage(reply, visit, { values: form, notice: refusalNotice(created) }, created.status);
    }
    return reply.redirect(back(visit, 'created'), 303);
  });

  app.get(`${base}/:id/archive`, { schema: { hide: true, params: linkParams } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const [link, catalog] = await Promise.all([
      visit.api.asMember<CheckoutLinkRecord>('GET', `${API}${encodeURIComponent(request.params.id)}`),
      catalogOf(visit),
    ]);
    if (link.status !== 200) return linksPage(reply, visit, { notice: refusalNotice(link) }, link.status);
    if (link.body.is_archived) return reply.redirect(dashboardPaths.section(visit.organization.id, SECTION), 303);
    return sendSection(reply, visit, SECTION, {
      title: 'Archive this link?',
      children: archiveLinkConfirmation({
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        link: link.body,
        products: catalog.products,
      }),
    });
  });

  const change = (method: 'DELETE' | 'PATCH', done: 'archived' | 'restored', body?: unknown) =>
    app.post(
      `${base}/:id/${done === 'archived' ? 'archive' : 'restore'}`,
      { schema: { hide: true, params: linkParams, body: csrfOnly } },
      async (request, reply) => {
        const visit = await sectionVisit(app, deps, request, reply);
        if (!visit) return reply;
        const answer = await visit.api.asMember(method, `${API}${encodeURIComponent(request.params.id)}`, { body });
        if (answer.status >= 300) return linksPage(reply, visit, { notice: refusalNotice(answer) }, answer.status);
        return reply.redirect(back(visit, done), 303);
      },
    );
  change('DELETE', 'archived');
  change('PATCH', 'restored', { is_archived: false });
}
