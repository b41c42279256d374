import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { brazilToday } from '../../../domain/invoices.ts';
import type { SubscriptionBody } from '../../../api/schemas/subscriptions.ts';
import { recordPath } from '../commerce.ts';
import type { InvoiceFormValues } from '../invoices.ts';
import type { Locale } from '../../locale.ts';
import type { Notice } from '../layout.ts';
import { commerceMessages } from '../messages-commerce.ts';
import { subscriptionContent } from '../subscription.ts';
import {
  SUBSCRIPTION_ACTIONS,
  subscriptionActionConfirmation,
  subscriptionsContent,
  type SubscriptionAction,
} from '../subscriptions.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import {
  byId,
  commerceContext,
  csrfOnly,
  listParams,
  PAGE_SIZE,
  listQuery,
  namesOf,
  pageNumber,
  readList,
  readRecord,
  recordParams,
} from './commerce.ts';
import { unchecked } from '../api-client.ts';
import { centsOf, organizationParams } from './forms.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const invoiceForm = z.object({
  csrf: z.string().max(200).optional(),
  amount: z.string().max(40).optional(),
  description: z.string().max(400).optional(),
  due_date: z.string().max(20).optional(),
});
const actionParams = recordParams.extend({ action: z.enum(['cancel', 'uncancel', 'revoke']) });
/** The `done` words after a change or an extra charge, in the page's language. */
const doneWords = (locale: Locale): Record<string, string> => {
  const t = commerceMessages(locale).subscriptions;
  return {
    ...Object.fromEntries(Object.entries(t.actions).map(([a, words]) => [a, words.done])),
    invoice: t.invoiceDone,
  };
};

/** Subscriptions: the list, one subscription's page and its changes, and its extra charges' form. */
export function subscriptionPageRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/subscriptions',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const q = request.query;
      const page = pageNumber(q.page);
      const { list, refusal } = await readList(
        visit.api.member.GET(
          '/api/v1/subscriptions',
          listParams({
            page,
            status: unchecked<SubscriptionBody['status'] | undefined>(q.status || undefined),
            customer_id: q.customer_id || undefined,
          }),
        ),
      );
      const names = await namesOf(visit, {
        customers: [...(list?.items.map((s) => s.customer_id) ?? []), ...(q.customer_id ? [q.customer_id] : [])],
        products: list?.items.map((s) => s.product_id),
      });
      return sendSection(
        reply,
        visit,
        'subscriptions',
        {
          title: commerceMessages(visit.locale).subscriptions.title,
          notice: refusal ? refusalNotice(refusal, visit.locale) : null,
          children: subscriptionsContent({
            ...commerceContext(visit, names),
            list,
            page,
            status: q.status || undefined,
            customerId: q.customer_id || undefined,
          }),
        },
        refusal?.response.status ?? 200,
      );
    },
  );

  app.get(
    '/dashboard/:organization_id/subscriptions/:id',
    { schema: { hide: true, params: recordParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      return subscriptionPage(reply, visit, request.params.id, {
        notice: doneNotice(request.query.done, doneWords(visit.locale)),
      });
    },
  );

  actionRoutes(app, deps);
  invoiceRoutes(app, deps);
}

const readSubscription = (reply: FastifyReply, visit: MemberVisit, id: string) =>
  readRecord(reply, visit, 'subscriptions', visit.api.member.GET('/api/v1/subscriptions/{id}', byId(id)));

/** A subscription's page: its facts, timeline, extra charges and sales. */
async function subscriptionPage(
  reply: FastifyReply,
  visit: MemberVisit,
  id: string,
  extra: { notice?: Notice | null; status?: number; invoiceValues?: InvoiceFormValues } = {},
): Promise<FastifyReply> {
  const s = await readSubscription(reply, visit, id);
  if (!s) return reply;
  const [invoices, sales, names] = await Promise.all([
    readList(
      visit.api.member.GET('/api/v1/subscriptions/{id}/invoices', {
        params: { path: { id: s.id }, query: { limit: PAGE_SIZE } },
      }),
    ),
    readList(visit.api.member.GET('/api/v1/sales', listParams({ subscription_id: s.id }))),
    namesOf(visit, { customers: [s.customer_id], products: [s.product_id] }),
  ]);
  const refusal = invoices.refusal ?? sales.refusal;
  return sendSection(
    reply,
    visit,
    'subscriptions',
    {
      title: commerceMessages(visit.locale).subscriptions.subscriptionTo(
        names.products.get(s.product_id) ?? s.product_id,
      ),
      notice: refusal ? refusalNotice(refusal, visit.locale) : (extra.notice ?? null),
      children: subscriptionContent({
        ...commerceContext(visit, names),
        s,
        invoices: invoices.list,
        sales: sales.list,
        invoiceValues: extra.invoiceValues ?? { due_date: brazilToday(new Date()) },
      }),
    },
    extra.status ?? 200,
  );
}

/** Cancel at period end, undo it, revoke now: each a confirmation page, then the post that sends the PATCH. */
function actionRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/subscriptions/:id/:action',
    { schema: { hide: true, params: actionParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const s = await readSubscription(reply, visit, request.params.id);
      if (!s) return reply;
      const action: SubscriptionAction = request.params.action;
      const names = await namesOf(visit, { customers: [s.customer_id], products: [s.product_id] });
      return sendSection(reply, visit, 'subscriptions', {
        title: commerceMessages(visit.locale).subscriptions.actions[action].title,
        children: subscriptionActionConfirmation({ ...commerceContext(visit, names), s, action }),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/subscriptions/:id/:action',
    { schema: { hide: true, params: actionParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id, action } = request.params;
      const changed = await visit.api.member.PATCH('/api/v1/subscriptions/{id}', {
        ...byId(id),
        body: SUBSCRIPTION_ACTIONS[action].body,
      });
      if (!changed.data) {
        const status = changed.response.status;
        return subscriptionPage(reply, visit, id, { notice: refusalNotice(changed, visit.locale), status });
      }
      return reply.redirect(`${recordPath(visit.organization.id, 'subscriptions', id)}?done=${action}`, 303);
    },
  );
}

/** An extra charge: the form on the subscription's page posts here, and the API creates it at the gateway. */
function invoiceRoutes(app: RouteApp, deps: RouteDeps): void {
  // The address a refused form leaves in the bar: reloaded or shared, it is the subscription's page.
  app.get(
    '/dashboard/:organization_id/subscriptions/:id/invoices',
    { schema: { hide: true, params: recordParams } },
    async (request, reply) =>
      reply.redirect(
        recordPath(
          encodeURIComponent(request.params.organization_id),
          'subscriptions',
          encodeURIComponent(request.params.id),
        ),
        303,
      ),
  );

  app.post(
    '/dashboard/:organization_id/subscriptions/:id/invoices',
    { schema: { hide: true, params: recordParams, body: invoiceForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const { csrf: _, ...values } = request.body ?? {};
      const cents = centsOf(values.amount);
      if (cents === undefined) {
        const notice: Notice = { kind: 'alert', title: commerceMessages(visit.locale).subscriptions.invoiceNotAmount };
        return subscriptionPage(reply, visit, id, { notice, status: 400, invoiceValues: values });
      }
      const created = await visit.api.member.POST('/api/v1/subscriptions/{id}/invoices', {
        ...byId(id),
        body: {
          amount: cents,
          due_date: values.due_date ?? '',
          ...(values.description?.trim() ? { description: values.description } : {}),
        },
      });
      if (!created.data) {
        return subscriptionPage(reply, visit, id, {
          notice: refusalNotice(created, visit.locale),
          status: created.response.status,
          invoiceValues: values,
        });
      }
      return reply.redirect(`${recordPath(visit.organization.id, 'subscriptions', id)}?done=invoice`, 303);
    },
  );
}
