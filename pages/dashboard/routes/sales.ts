import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { SaleBody } from '../../../use-cases/schemas/sales.ts';
import { recordPath } from '../commerce.ts';
import type { Notice } from '../layout.ts';
import { refundAmountRefusal, saleRefundable } from '../refund-balance.ts';
import { csvDocument, reais } from '../csv.ts';
import { recordMessages } from '../messages-records.ts';
import {
  refundConfirmation,
  refundsContent,
  saleContent,
  salesContent,
  salesFilters,
  type RefundFormValues,
} from '../sales.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import {
  byId,
  commerceContext,
  listParams,
  listQuery,
  pageNumber,
  readList,
  readRecord,
  recordParams,
} from './commerce.ts';
import { unchecked } from '../api-client.ts';
import { centsOf, organizationParams } from './forms.ts';
import { allRows, sendCsv } from './record-exports.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const refundForm = z.object({
  csrf: z.string().max(200).optional(),
  amount: z.string().max(40).optional(),
  reason: z.string().max(600).optional(),
});
const refundQuery = refundForm.omit({ csrf: true });

/** Sales and refunds: the lists, a sale's page with its refunds, and a refund behind its confirmation. */
export function salePageRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/sales',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const filters = salesFiltersOf(request.query);
      const page = pageNumber(request.query.page);
      const { list, refusal } = await readList(
        visit.api.member.GET('/api/v1/sales', listParams({ page, ...salesQuery(filters) })),
      );
      return sendSection(
        reply,
        visit,
        'sales',
        {
          title: recordMessages(visit.locale).sales.title,
          notice: refusal ? refusalNotice(refusal, visit.locale) : null,
          children: salesContent({ ...commerceContext(visit), list, page, ...filters }),
        },
        refusal?.response.status ?? 200,
      );
    },
  );

  app.get(
    '/dashboard/:organization_id/refunds',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const page = pageNumber(request.query.page);
      const { list, refusal } = await readList(visit.api.member.GET('/api/v1/refunds', listParams({ page })));
      return sendSection(
        reply,
        visit,
        'refunds',
        {
          title: recordMessages(visit.locale).refunds.title,
          notice: refusal ? refusalNotice(refusal, visit.locale) : null,
          children: refundsContent({ ...commerceContext(visit), list, page }),
        },
        refusal?.response.status ?? 200,
      );
    },
  );

  app.get(
    '/dashboard/:organization_id/sales/:id',
    { schema: { hide: true, params: recordParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const done = recordMessages(visit.locale).refunds.done;
      return salePage(reply, visit, request.params.id, { notice: doneNotice(request.query.done, done) });
    },
  );

  exportRoute(app, deps);
  refundRoutes(app, deps);
}

type SalesFilters = ReturnType<typeof salesFiltersOf>;

/** The sales list's filters as the page's query sends them (an empty field is no filter). */
const salesFiltersOf = (q: z.infer<typeof listQuery>) => ({
  status: q.status || undefined,
  customerId: q.customer_id || undefined,
  subscriptionId: q.subscription_id || undefined,
  search: q.query?.trim() || undefined,
});

/** The API's query of those filters; the API says which it refuses. */
const salesQuery = (filters: SalesFilters) => {
  const { status, ...rest } = salesFilters(filters);
  return { ...rest, status: unchecked<SaleBody['status'] | undefined>(status) };
};

/** Every sale the list's filters match (up to the cap), as CSV: amounts in reais from cents, ISO dates. */
function exportRoute(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/sales/export.csv',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const t = recordMessages(visit.locale);
      const query = salesQuery(salesFiltersOf(request.query));
      const sales = await allRows((page, limit) =>
        readList(visit.api.member.GET('/api/v1/sales', { params: { query: { ...query, page, limit } } })),
      );
      if ('refusal' in sales) {
        const page = { title: t.sales.title, notice: refusalNotice(sales.refusal, visit.locale), children: null };
        return sendSection(reply, visit, 'sales', page, sales.refusal.response.status);
      }
      const rows = sales.rows.map((s) => [
        s.id,
        s.created_at,
        s.customer.email,
        s.customer.name,
        s.product.name,
        s.currency,
        reais(s.amount),
        reais(s.total_amount),
        s.payment_method,
        String(s.installments),
        s.status,
        reais(s.refunded_amount),
      ]);
      return sendCsv(reply, t.sales.title.toLowerCase(), csvDocument(t.sales.csv, rows));
    },
  );
}

async function salePage(
  reply: FastifyReply,
  visit: MemberVisit,
  id: string,
  extra: { notice?: Notice | null; status?: number; values?: RefundFormValues } = {},
): Promise<FastifyReply> {
  const sale = await readSale(reply, visit, id);
  if (!sale) return reply;
  const { list: refunds, refusal } = await readList(
    visit.api.member.GET('/api/v1/refunds', listParams({ sale_id: sale.id })),
  );
  return sendSection(
    reply,
    visit,
    'sales',
    {
      title: recordMessages(visit.locale).sale.title(sale.product.name),
      notice: refusal ? refusalNotice(refusal, visit.locale) : (extra.notice ?? null),
      children: saleContent({
        ...commerceContext(visit),
        sale,
        refunds,
        values: extra.values ?? {},
        refundable: saleRefundable(sale, refunds?.items ?? []),
      }),
    },
    extra.status ?? 200,
  );
}

const readSale = (reply: FastifyReply, visit: MemberVisit, id: string) =>
  readRecord(reply, visit, 'sales', visit.api.member.GET('/api/v1/sales/{id}', byId(id)));

/** A refund's amount as typed: null for "all that is refundable", undefined when it is not an amount. */
const refundCents = (text: string | undefined) => (text?.trim() ? centsOf(text) : null);

/** Why the amount typed cannot be refunded (not an amount, more than is left), from the sale's refunds. */
async function refundRefusal(visit: MemberVisit, sale: SaleBody, values: RefundFormValues): Promise<Notice | null> {
  const { list } = await readList(visit.api.member.GET('/api/v1/refunds', listParams({ sale_id: sale.id })));
  const cents = refundCents(values.amount);
  return refundAmountRefusal(visit.locale, sale, cents, saleRefundable(sale, list?.items ?? []));
}

/** The refund form asks (GET) for its confirmation, which shows the amount; its button posts the refund. */
function refundRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/sales/:id/refund',
    { schema: { hide: true, params: recordParams, querystring: refundQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const values = request.query;
      const sale = await readSale(reply, visit, request.params.id);
      if (!sale) return reply;
      const refused = await refundRefusal(visit, sale, values);
      if (refused) return salePage(reply, visit, sale.id, { notice: refused, status: 400, values });
      const cents = refundCents(values.amount) ?? null;
      return sendSection(reply, visit, 'sales', {
        title: recordMessages(visit.locale).confirm.title,
        children: refundConfirmation({ ...commerceContext(visit), sale, cents, values }),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/sales/:id/refund',
    { schema: { hide: true, params: recordParams, body: refundForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const { csrf: _, ...values } = request.body ?? {};
      const sale = await readSale(reply, visit, id);
      if (!sale) return reply;
      const refused = await refundRefusal(visit, sale, values);
      if (refused) return salePage(reply, visit, id, { notice: refused, status: 400, values });
      const cents = refundCents(values.amount) ?? null;
      const refund = await visit.api.member.POST('/api/v1/refunds', {
        body: {
          sale_id: id,
          ...(cents === null ? {} : { amount: cents }),
          ...(values.reason?.trim() ? { reason: values.reason } : {}),
        },
      });
      if (!refund.data) {
        return salePage(reply, visit, id, {
          notice: refusalNotice(refund, visit.locale),
          status: refund.response.status,
          values,
        });
      }
      return reply.redirect(`${recordPath(visit.organization.id, 'sales', id)}?done=${refund.data.status}`, 303);
    },
  );
}
