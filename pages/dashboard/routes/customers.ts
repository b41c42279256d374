import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { recordPath } from '../commerce.ts';
import {
  customerContent,
  customerCsvRow,
  customersContent,
  type CustomerFormValues,
  type PortalSession,
} from '../customers.ts';
import { csvDocument } from '../csv.ts';
import { recordMessages } from '../messages-records.ts';
import type { Notice } from '../layout.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import {
  byId,
  commerceContext,
  csrfOnly,
  listParams,
  listQuery,
  namesOf,
  pageNumber,
  readList,
  readRecord,
  recordParams,
} from './commerce.ts';
import { organizationParams } from './forms.ts';
import { allRows, sendCsv } from './record-exports.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const createForm = z.object({
  csrf: z.string().max(200).optional(),
  email: z.string().max(400).optional(),
  name: z.string().max(400).optional(),
  tax_id: z.string().max(64).optional(),
});

/** Customers (spec, Customers) through the API's own routes, as the signed-in member. */
export function customerPageRoutes(app: RouteApp, deps: RouteDeps): void {
  /** The list with its search and the creation form (with the values sent back after a refusal). */
  const listPage = async (
    reply: FastifyReply,
    visit: MemberVisit,
    q: { query?: string; page?: string },
    extra: { values?: CustomerFormValues; notice?: Notice | null; status?: number } = {},
  ) => {
    const page = pageNumber(q.page);
    const search = q.query?.trim() || undefined;
    const { list, refusal } = await readList(
      visit.api.member.GET('/api/v1/customers', listParams({ query: search, page })),
    );
    return sendSection(
      reply,
      visit,
      'customers',
      {
        title: recordMessages(visit.locale).customers.title,
        notice: refusal ? refusalNotice(refusal, visit.locale) : (extra.notice ?? null),
        children: customersContent({
          ...commerceContext(visit),
          list,
          page,
          search,
          values: extra.values ?? {},
        }),
      },
      refusal?.response.status ?? extra.status ?? 200,
    );
  };

  app.get(
    '/dashboard/:organization_id/customers',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      return listPage(reply, visit, request.query);
    },
  );

  app.post(
    '/dashboard/:organization_id/customers',
    { schema: { hide: true, params: organizationParams, body: createForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { csrf: _, ...values } = request.body ?? {};
      const created = await visit.api.member.POST('/api/v1/customers', {
        body: {
          email: values.email?.trim() ?? '',
          ...(values.name?.trim() ? { name: values.name } : {}),
          ...(values.tax_id?.trim() ? { tax_id: values.tax_id.trim() } : {}),
        },
      });
      if (!created.data) {
        const status = created.response.status;
        return listPage(reply, visit, {}, { values, notice: refusalNotice(created, visit.locale), status });
      }
      return reply.redirect(`${recordPath(visit.organization.id, 'customers', created.data.id)}?done=created`, 303);
    },
  );

  exportRoute(app, deps);
  customerRoutes(app, deps);
}

/** Every customer the search matches (up to the cap), as CSV with ISO dates. */
function exportRoute(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/customers/export.csv',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const t = recordMessages(visit.locale).customers;
      const query = request.query.query?.trim() || undefined;
      const customers = await allRows((page, limit) =>
        readList(visit.api.member.GET('/api/v1/customers', { params: { query: { query, page, limit } } })),
      );
      if ('refusal' in customers) {
        const page = { title: t.title, notice: refusalNotice(customers.refusal, visit.locale), children: null };
        return sendSection(reply, visit, 'customers', page, customers.refusal.response.status);
      }
      return sendCsv(reply, t.title.toLowerCase(), csvDocument(t.csv, customers.rows.map(customerCsvRow)));
    },
  );
}

/** One customer's page, and its portal link. */
function customerRoutes(app: RouteApp, deps: RouteDeps): void {
  const page = async (
    reply: FastifyReply,
    visit: MemberVisit,
    id: string,
    extra: { portal?: PortalSession; notice?: Notice | null; status?: number } = {},
  ) => {
    const customer = await readRecord(
      reply,
      visit,
      'customers',
      visit.api.member.GET('/api/v1/customers/{id}', byId(id)),
    );
    if (!customer) return reply;
    const [subscriptions, sales] = await Promise.all([
      readList(visit.api.member.GET('/api/v1/subscriptions', listParams({ customer_id: id }))),
      readList(visit.api.member.GET('/api/v1/sales', listParams({ customer_id: id }))),
    ]);
    const names = await namesOf(visit, { products: subscriptions.list?.items.map((s) => s.product_id) });
    const refusal = subscriptions.refusal ?? sales.refusal;
    return sendSection(
      reply,
      visit,
      'customers',
      {
        title: customer.name ?? customer.email,
        notice: refusal ? refusalNotice(refusal, visit.locale) : (extra.notice ?? null),
        children: customerContent({
          ...commerceContext(visit, names),
          customer,
          subscriptions: subscriptions.list,
          sales: sales.list,
          portal: extra.portal,
        }),
      },
      extra.status ?? 200,
    );
  };

  app.get(
    '/dashboard/:organization_id/customers/:id',
    { schema: { hide: true, params: recordParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const done = { created: recordMessages(visit.locale).customers.created };
      return page(reply, visit, request.params.id, { notice: doneNotice(request.query.done, done) });
    },
  );

  // The link carries the session's token: it is shown in this post's answer only, never in an address
  // or the history; a reload asks before posting again, which opens another session.
  app.post(
    '/dashboard/:organization_id/customers/:id/portal-link',
    { schema: { hide: true, params: recordParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const session = await visit.api.member.POST('/api/v1/customer-portal/sessions', {
        body: { customer_id: request.params.id },
      });
      if (!session.data) {
        const status = session.response.status;
        return page(reply, visit, request.params.id, { notice: refusalNotice(session, visit.locale), status });
      }
      return page(reply, visit, request.params.id, {
        portal: session.data,
        notice: { kind: 'status', title: recordMessages(visit.locale).customer.portalCreated },
      });
    },
  );
}
