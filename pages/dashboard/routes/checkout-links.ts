import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  archiveLinkConfirmation,
  checkoutLinksContent,
  editLinkContent,
  linkName,
  type CheckoutLinksView,
  type CheckoutLinkValues,
} from '../checkout-links.ts';
import type { ApiAnswer, ApiClient } from '../api-client.ts';
import type { Notice } from '../layout.ts';
import type { Locale } from '../../locale.ts';
import { linkMessages } from '../messages-links.ts';
import { dashboardPaths } from '../paths.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { formList, organizationParams, pageNumberOf } from './forms.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const linkParams = organizationParams.extend({ id: z.string().max(64) });
const csrfOnly = z.object({ csrf: z.string().max(200).optional() });
const linkForm = csrfOnly.extend({
  product_ids: formList,
  label: z.string().max(300).optional(),
  success_url: z.string().max(2100).optional(),
  cancel_url: z.string().max(2100).optional(),
  allow_discount_codes: z.string().max(10).optional(),
  discount_id: z.string().max(64).optional(),
});
type LinkForm = z.infer<typeof linkForm>;
const listQuery = z.object({ done: z.string().max(20).optional(), page: z.string().max(10).optional() });

const SECTION = 'checkout-links';
type Done = 'created' | 'saved' | 'archived' | 'restored';
const byId = (id: string) => ({ params: { path: { id } } });
const blankless = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);

/** What the form sends the API; a blank optional field clears it (null) when editing. */
function linkBody(form: LinkForm, cleared: null | undefined) {
  return {
    label: blankless(form.label) ?? cleared,
    product_ids: form.product_ids,
    discount_id: blankless(form.discount_id) ?? cleared,
    allow_discount_codes: form.allow_discount_codes === 'true',
    success_url: blankless(form.success_url) ?? cleared,
    cancel_url: blankless(form.cancel_url) ?? cleared,
  };
}

/**
 * The API's refusal in the page's words, by its error code (decision 0084); a validation error by the
 * field it names. Codes this page does not word get the dashboard's shared words (messages-refusals.ts).
 */
export function linkRefusal(locale: Locale, answer: ApiAnswer): Notice {
  const t = linkMessages(locale);
  const body = (typeof answer.error === 'object' && answer.error !== null ? answer.error : {}) as {
    code?: unknown;
    detail?: unknown;
  };
  const code = typeof body.code === 'string' ? body.code : '';
  const field = code === 'validation_error' && typeof body.detail === 'string' ? /body\.(\w+)/.exec(body.detail) : null;
  const words = (field && t.fields[field[1]!]) || t.refusals[code];
  return words ? { kind: 'alert', title: t.refused, detail: words } : refusalNotice(answer, locale);
}

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
  const t = linkMessages(visit.locale);
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
      title: t.title,
      notice: refused ? linkRefusal(visit.locale, refused) : (extra.notice ?? null),
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

/** Checkout links (spec, Checkout links): the list, creation, editing, archiving behind a confirmation, restoring. */
export function checkoutLinkPageRoutes(app: RouteApp, deps: RouteDeps): void {
  const base = `/dashboard/:organization_id/${SECTION}`;
  const back = (visit: MemberVisit, done: Done) =>
    `${dashboardPaths.section(visit.organization.id, SECTION)}?done=${done}`;

  app.get(
    base,
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const page = pageNumberOf(request.query.page);
      const notice = doneNotice(request.query.done, linkMessages(visit.locale).done);
      return linksPage(reply, visit, { notice, page });
    },
  );

  app.post(base, { schema: { hide: true, params: organizationParams, body: linkForm } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const form = request.body ?? linkForm.parse({});
    const created = await visit.api.member.POST('/api/v1/checkout-links', { body: linkBody(form, undefined) });
    if (!created.data) {
      const notice = linkRefusal(visit.locale, created);
      return linksPage(reply, visit, { values: form, notice }, created.response.status);
    }
    return reply.redirect(back(visit, 'created'), 303);
  });

  editRoutes(app, deps, base, back);
  archiveRoutes(app, deps, base, back);
}

/** The edit page and its form, which sends the API's PATCH with every field of the form. */
function editRoutes(
  app: RouteApp,
  deps: RouteDeps,
  base: string,
  back: (visit: MemberVisit, done: Done) => string,
): void {
  const editPage = async (
    reply: FastifyReply,
    visit: MemberVisit,
    id: string,
    posted?: { values: CheckoutLinkValues; notice: Notice; status: number },
  ) => {
    const t = linkMessages(visit.locale);
    const [link, catalog] = await Promise.all([
      visit.api.member.GET('/api/v1/checkout-links/{id}', byId(id)),
      catalogOf(visit),
    ]);
    if (!link.data) return linksPage(reply, visit, { notice: linkRefusal(visit.locale, link) }, link.response.status);
    return sendSection(
      reply,
      visit,
      SECTION,
      {
        title: t.editTitle(linkName(link.data, catalog.products)),
        notice: posted?.notice ?? null,
        children: editLinkContent({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          link: link.data,
          ...catalog,
          values: posted?.values,
        }),
      },
      posted?.status ?? 200,
    );
  };

  app.get(`${base}/:id/edit`, { schema: { hide: true, params: linkParams } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    return editPage(reply, visit, request.params.id);
  });

  app.post(
    `${base}/:id/edit`,
    { schema: { hide: true, params: linkParams, body: linkForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const form = request.body ?? linkForm.parse({});
      const saved = await visit.api.member.PATCH('/api/v1/checkout-links/{id}', {
        ...byId(request.params.id),
        body: linkBody(form, null),
      });
      if (!saved.data) {
        const notice = linkRefusal(visit.locale, saved);
        return editPage(reply, visit, request.params.id, { values: form, notice, status: saved.response.status });
      }
      return reply.redirect(back(visit, 'saved'), 303);
    },
  );
}

/** Archiving behind a confirmation, and restoring. */
function archiveRoutes(
  app: RouteApp,
  deps: RouteDeps,
  base: string,
  back: (visit: MemberVisit, done: Done) => string,
): void {
  app.get(`${base}/:id/archive`, { schema: { hide: true, params: linkParams } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const t = linkMessages(visit.locale);
    const [link, catalog] = await Promise.all([
      visit.api.member.GET('/api/v1/checkout-links/{id}', byId(request.params.id)),
      catalogOf(visit),
    ]);
    if (!link.data) return linksPage(reply, visit, { notice: linkRefusal(visit.locale, link) }, link.response.status);
    if (link.data.is_archived) return reply.redirect(dashboardPaths.section(visit.organization.id, SECTION), 303);
    return sendSection(reply, visit, SECTION, {
      title: t.archiveTitle,
      children: archiveLinkConfirmation({
        locale: visit.locale,
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
        if (status >= 300) {
          return linksPage(reply, visit, { notice: linkRefusal(visit.locale, answer) }, status);
        }
        return reply.redirect(back(visit, done), 303);
      },
    );
  change('archived', (api, id) => api.DELETE('/api/v1/checkout-links/{id}', byId(id)));
  change('restored', (api, id) =>
    api.PATCH('/api/v1/checkout-links/{id}', { ...byId(id), body: { is_archived: false } }),
  );
}
