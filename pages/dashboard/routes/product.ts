import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { RequestBody } from '../api-client.ts';
import type { Notice } from '../layout.ts';
import {
  archivePriceConfirmation,
  archiveProductConfirmation,
  productContent,
  productPath,
  type ProductView,
} from '../product.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { catalogMessages, type CatalogMessages } from '../messages-catalog.ts';
import { priceBody, priceForm, problemNotice } from './catalog-forms.ts';
import { organizationParams } from './forms.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const productParams = organizationParams.extend({ id: z.string().max(64) });
const priceParams = productParams.extend({ price_id: z.string().max(64) });
const csrfOnly = z.object({ csrf: z.string().max(200).optional() });
const defaultForm = csrfOnly.extend({ price_id: z.string().max(64).optional() });
const detailsForm = csrfOnly.extend({
  name: z.string().max(300).optional(),
  description: z.string().max(20_000).optional(),
});
const doneQuery = z.object({ done: z.string().max(20).optional() });

type Done = keyof CatalogMessages['product']['done'];

type Extra = Pick<ProductView, 'values' | 'invalid'> & { notice?: Notice | null };

const byId = (id: string) => ({ params: { path: { id } } });
const readProduct = (visit: MemberVisit, id: string) => visit.api.member.GET('/api/v1/products/{id}', byId(id));

/** The product's page; the API's refusal (a 404 for a product not of this organization) in its place. */
async function productPage(
  reply: FastifyReply,
  visit: MemberVisit,
  id: string,
  extra: Extra = {},
  status = 200,
): Promise<FastifyReply> {
  const product = await readProduct(visit, id);
  if (!product.data) {
    return sendSection(
      reply,
      visit,
      'products',
      {
        title: catalogMessages(visit.locale).product.title,
        notice: refusalNotice(product, visit.locale),
        children: null,
      },
      product.response.status,
    );
  }
  const { notice, ...view } = extra;
  return sendSection(
    reply,
    visit,
    'products',
    {
      title: product.data.name,
      notice: notice ?? null,
      children: productContent({
        locale: visit.locale,
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        product: product.data,
        ...view,
      }),
    },
    status,
  );
}

/** A change of the product through PATCH: back to its page with `done`, or its page with the API's refusal. */
async function patchProduct(
  reply: FastifyReply,
  visit: MemberVisit,
  id: string,
  change: { body: RequestBody<'/api/v1/products/{id}', 'patch'>; done: Done; values?: Extra['values'] },
): Promise<FastifyReply> {
  const patched = await visit.api.member.PATCH('/api/v1/products/{id}', { ...byId(id), body: change.body });
  if (patched.response.status !== 200) {
    const extra = { values: change.values, notice: refusalNotice(patched, visit.locale) };
    return productPage(reply, visit, id, extra, patched.response.status);
  }
  return reply.redirect(`${productPath(visit.organization.id, id)}?done=${change.done}`, 303);
}

/** One product (spec, Products): its page, new prices, the default price, archiving prices and the product. */
export function productPageRoutes(app: RouteApp, deps: RouteDeps): void {
  const base = '/dashboard/:organization_id/products/:id';

  app.get(base, { schema: { hide: true, params: productParams, querystring: doneQuery } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const done = catalogMessages(visit.locale).product.done;
    return productPage(reply, visit, request.params.id, { notice: doneNotice(request.query.done, done) });
  });

  app.post(
    `${base}/prices`,
    { schema: { hide: true, params: productParams, body: priceForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const form = request.body ?? {};
      const price = priceBody(form, visit.locale);
      if ('problem' in price) {
        const notice = problemNotice(price.problem, visit.locale);
        const extra = { values: form, invalid: price.problem.field, notice };
        return productPage(reply, visit, request.params.id, extra, 400);
      }
      const change = { body: { add_prices: [price.price] }, done: 'price-added' as const, values: form };
      return patchProduct(reply, visit, request.params.id, change);
    },
  );

  app.post(
    `${base}/details`,
    { schema: { hide: true, params: productParams, body: detailsForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const form = request.body ?? {};
      // A blank description clears it (null); the name goes as typed, for the API to judge.
      const body = { name: form.name ?? '', description: form.description?.trim() ? form.description : null };
      return patchProduct(reply, visit, request.params.id, { body, done: 'saved', values: form });
    },
  );

  app.post(
    `${base}/default-price`,
    { schema: { hide: true, params: productParams, body: defaultForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const change = { body: { default_price_id: request.body?.price_id ?? '' }, done: 'default' as const };
      return patchProduct(reply, visit, request.params.id, change);
    },
  );

  app.post(
    `${base}/restore`,
    { schema: { hide: true, params: productParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      return patchProduct(reply, visit, request.params.id, { body: { is_archived: false }, done: 'restored' });
    },
  );

  archiveRoutes(app, deps, base);
}

/** Archiving the product (DELETE) and one of its prices (PATCH archive_price_ids), each behind a confirmation. */
function archiveRoutes(app: RouteApp, deps: RouteDeps, base: string): void {
  app.get(`${base}/archive`, { schema: { hide: true, params: productParams } }, async (request, reply) => {
    const visit = await sectionVisit(app, deps, request, reply);
    if (!visit) return reply;
    const { id } = request.params;
    const product = await readProduct(visit, id);
    if (!product.data) return productPage(reply, visit, id);
    if (product.data.is_archived) return reply.redirect(productPath(visit.organization.id, id), 303);
    return sendSection(reply, visit, 'products', {
      title: catalogMessages(visit.locale).product.archiveProductTitle,
      children: archiveProductConfirmation({
        locale: visit.locale,
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        product: product.data,
      }),
    });
  });

  app.post(
    `${base}/archive`,
    { schema: { hide: true, params: productParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const archived = await visit.api.member.DELETE('/api/v1/products/{id}', byId(id));
      if (archived.response.status !== 204) {
        return productPage(
          reply,
          visit,
          id,
          { notice: refusalNotice(archived, visit.locale) },
          archived.response.status,
        );
      }
      return reply.redirect(`${productPath(visit.organization.id, id)}?done=archived`, 303);
    },
  );

  app.get(
    `${base}/prices/:price_id/archive`,
    { schema: { hide: true, params: priceParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id, price_id: priceId } = request.params;
      const product = await readProduct(visit, id);
      if (!product.data) return productPage(reply, visit, id);
      const price = product.data.prices.find((p) => p.id === priceId && p.active);
      if (!price) return reply.redirect(productPath(visit.organization.id, id), 303);
      return sendSection(reply, visit, 'products', {
        title: catalogMessages(visit.locale).product.archivePriceTitle,
        children: archivePriceConfirmation({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          product: product.data,
          price,
        }),
      });
    },
  );

  app.post(
    `${base}/prices/:price_id/archive`,
    { schema: { hide: true, params: priceParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const change = { body: { archive_price_ids: [request.params.price_id] }, done: 'price-archived' as const };
      return patchProduct(reply, visit, request.params.id, change);
    },
  );
}
