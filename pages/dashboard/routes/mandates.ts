import { z } from 'zod';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { unchecked } from '../api-client.ts';
import { mandateDetails, mandatesContent } from '../mandates.ts';
import { mandateMessages } from '../messages-mandates.ts';
import { byId, readRecord, recordParams } from './commerce.ts';
import { organizationParams, pageNumberOf } from './forms.ts';
import { refusalNotice, sectionVisit, sendSection } from './visit.ts';

const listQuery = z.object({ status: z.string().max(20).optional(), page: z.string().max(10).optional() });
const PAGE_SIZE = 25;

type MandateStatus = 'created' | 'approved' | 'rejected' | 'expired' | 'cancelled';

/** Pix Automático: the mandates, and a mandate with its charges and their attempts (decision 0096). */
export function mandatePageRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/mandates',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const status = request.query.status || undefined;
      const page = pageNumberOf(request.query.page);
      const mandates = await visit.api.member.GET('/api/v1/mandates', {
        params: { query: { status: unchecked<MandateStatus | undefined>(status), page, limit: PAGE_SIZE } },
      });
      const t = mandateMessages(visit.locale);
      return sendSection(
        reply,
        visit,
        'mandates',
        {
          title: t.title,
          notice: mandates.data ? null : refusalNotice(mandates, visit.locale),
          children: mandatesContent({
            locale: visit.locale,
            organizationId: visit.organization.id,
            status,
            page,
            mandates: mandates.data ?? null,
          }),
        },
        mandates.response.status,
      );
    },
  );

  app.get(
    '/dashboard/:organization_id/mandates/:id',
    { schema: { hide: true, params: recordParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const t = mandateMessages(visit.locale);
      const call = visit.api.member.GET('/api/v1/mandates/{id}', byId(request.params.id));
      const mandate = await readRecord(reply, visit, 'mandates', call, t.title);
      if (!mandate) return reply;
      return sendSection(reply, visit, 'mandates', {
        title: t.titleOf(mandate.object_label),
        children: mandateDetails({
          locale: visit.locale,
          organizationId: visit.organization.id,
          mandate,
        }),
      });
    },
  );
}
