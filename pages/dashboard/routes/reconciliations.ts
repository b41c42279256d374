import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { utcYesterday } from '../../../domain/reconciliation-days.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { unchecked } from '../api-client.ts';
import { recordPath } from '../commerce.ts';
import type { Notice } from '../layout.ts';
import { reconciliationMessages } from '../messages-settings-reconciliation.ts';
import { dashboardPaths } from '../paths.ts';
import { reconciliationDetails, reconciliationsContent } from '../reconciliations.ts';
import { byId, readRecord, recordParams } from './commerce.ts';
import { organizationParams, pageNumberOf } from './forms.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const listQuery = z.object({
  status: z.string().max(20).optional(),
  page: z.string().max(10).optional(),
  done: z.string().max(20).optional(),
  day: z.string().max(20).optional(),
});
const runForm = z.object({ csrf: z.string().max(200).optional(), day: z.string().max(20).optional() });

const PAGE_SIZE = 25;

/** Reconciliation: the reports, a report with its lines and their CSV, and "Reconcile now" (decision 0076). */
export function reconciliationPageRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/reconciliations',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const q = request.query;
      return listPage(reply, visit, {
        status: q.status || undefined,
        page: pageNumberOf(q.page),
        day: q.day || utcYesterday(new Date()),
        notice: doneNotice(q.done, reconciliationMessages(visit.locale).done),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/reconciliations',
    { schema: { hide: true, params: organizationParams, body: runForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const day = request.body?.day ?? '';
      const run = await visit.api.member.POST('/api/v1/reconciliations', { body: { day } });
      const section = dashboardPaths.section(visit.organization.id, 'reconciliations');
      if (run.response.status === 202) return reply.redirect(`${section}?done=running`, 303);
      if (!run.data) {
        return listPage(
          reply,
          visit,
          { page: 1, day, notice: refusalNotice(run, visit.locale), status: undefined },
          run.response.status,
        );
      }
      const report = run.data as { id: string };
      return reply.redirect(recordPath(visit.organization.id, 'reconciliations', report.id), 303);
    },
  );

  app.get(
    '/dashboard/:organization_id/reconciliations/:id',
    { schema: { hide: true, params: recordParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const t = reconciliationMessages(visit.locale);
      const call = visit.api.member.GET('/api/v1/reconciliations/{id}', byId(request.params.id));
      const report = await readRecord(reply, visit, 'reconciliations', call, t.title);
      if (!report) return reply;
      return sendSection(reply, visit, 'reconciliations', {
        title: t.titleOf(report.day),
        children: reconciliationDetails({
          locale: visit.locale,
          organizationId: visit.organization.id,
          report,
        }),
      });
    },
  );

  csvRoute(app, deps);
}

/** The report's lines as the API's CSV, downloaded with the member's session. */
function csvRoute(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/reconciliations/:id/lines.csv',
    { schema: { hide: true, params: recordParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const csv = await visit.api.member.GET('/api/v1/reconciliations/{id}/lines.csv', {
        params: { path: { id: request.params.id } },
        parseAs: 'text',
      });
      if (csv.data === undefined) {
        const page = {
          title: reconciliationMessages(visit.locale).title,
          notice: refusalNotice(csv, visit.locale),
          children: null,
        };
        return sendSection(reply, visit, 'reconciliations', page, csv.response.status);
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', csv.response.headers.get('content-disposition') ?? 'attachment')
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .send(csv.data);
    },
  );
}

async function listPage(
  reply: FastifyReply,
  visit: MemberVisit,
  v: { status: string | undefined; page: number; day: string; notice: Notice | null },
  status?: number,
) {
  const reports = await visit.api.member.GET('/api/v1/reconciliations', {
    params: {
      query: { status: unchecked<'balanced' | 'drift' | undefined>(v.status), page: v.page, limit: PAGE_SIZE },
    },
  });
  const notice = v.notice ?? (reports.data ? null : refusalNotice(reports, visit.locale));
  return sendSection(
    reply,
    visit,
    'reconciliations',
    {
      title: reconciliationMessages(visit.locale).title,
      notice,
      children: reconciliationsContent({
        locale: visit.locale,
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        day: v.day,
        status: v.status,
        page: v.page,
        reports: reports.data ?? null,
      }),
    },
    status ?? reports.response.status,
  );
}
