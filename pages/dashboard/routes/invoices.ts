import type { InvoiceBody } from '../../../api/schemas/invoices.ts';
import { invoicesContent } from '../invoices.ts';
import { commerceMessages } from '../messages-commerce.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { commerceContext, listParams, listQuery, namesOf, pageNumber, readList } from './commerce.ts';
import { unchecked } from '../api-client.ts';
import { organizationParams } from './forms.ts';
import { refusalNotice, sectionVisit, sendSection } from './visit.ts';

/** Extra charges per subscription at most: the API lists them for one subscription at a time. */
const INVOICES_PER_SUBSCRIPTION = 100;

/**
 * Extra charges. The API has no organization-wide list of them, only each subscription's
 * (GET /api/v1/subscriptions/:id/invoices): this section pages through the subscriptions, newest
 * first, and shows the extra charges of the subscriptions of the page.
 */
export function invoicePageRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/invoices',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const page = pageNumber(request.query.page);
      const status = request.query.status || undefined;
      const subscriptions = await readList(visit.api.member.GET('/api/v1/subscriptions', listParams({ page })));
      const items = subscriptions.list?.items ?? [];
      const perSubscription = await Promise.all(
        items.map((subscription) =>
          visit.api.member
            .GET('/api/v1/subscriptions/{id}/invoices', {
              params: {
                path: { id: subscription.id },
                query: {
                  status: unchecked<InvoiceBody['status'] | undefined>(status),
                  limit: INVOICES_PER_SUBSCRIPTION,
                },
              },
            })
            .then((answer) => ({ subscription, answer })),
        ),
      );
      const refusal = subscriptions.refusal ?? perSubscription.find((r) => !r.answer.data)?.answer ?? null;
      const rows = perSubscription.flatMap(({ subscription, answer }) =>
        answer.data ? answer.data.items.map((invoice) => ({ invoice, subscription })) : [],
      );
      const shown = [...new Set(rows.map((r) => r.subscription))];
      const names = await namesOf(visit, {
        customers: shown.map((s) => s.customer_id),
        products: shown.map((s) => s.product_id),
      });
      return sendSection(
        reply,
        visit,
        'invoices',
        {
          title: commerceMessages(visit.locale).invoices.title,
          notice: refusal ? refusalNotice(refusal, visit.locale) : null,
          children: invoicesContent({
            ...commerceContext(visit, names),
            subscriptions: subscriptions.list,
            rows,
            page,
            status,
          }),
        },
        refusal?.response.status ?? 200,
      );
    },
  );
}
