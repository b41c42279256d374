import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  findReport,
  linesOf,
  listReports,
  reasonCountsOf,
  type ReportFilter,
} from '../../db/reconciliation/records.ts';
import { reconciliationDayRefusal } from '../../domain/reconciliation-days.ts';
import { ORGANIZATION_ID } from '../../domain/search-attributes.ts';
import { reconciliationWorkflowId, type ReconciliationWorkflow } from '../../contracts/reconciliation.ts';
import { notFound, unprocessable } from '../../use-cases/errors.ts';
import { errorResponses, isUuid, orderBy, pageOf, pageOffset } from '../../use-cases/schemas/common.ts';
import { presentReconciliation, presentReconciliationLine } from '../../use-cases/schemas/reconciliations.ts';
import { organizationCredential } from '../plugins/auth.ts';
import {
  createReconciliationBody,
  linesCsv,
  listReconciliationsQuery,
  reconciliationDetail,
  reconciliationLineSchema,
  reconciliationPage,
  reconciliationParams,
  reconciliationPending,
  reconciliationValidationErrors,
} from '../schemas/reconciliations.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

// The spec's read and write scopes of API keys name other resources: reconciliations fall to admin (decision 0076).
const READ = { oat: ['reconciliations:read'], apiKey: 'reconciliations' } as const;
const WRITE = { oat: ['reconciliations:write'], apiKey: 'reconciliations' } as const;
const tags = ['reconciliations'];

/** Our books reconciled with the gateway's ledger (decisions 0073, 0076): run on demand, reports read. */
export const reconciliationsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  runRoutes(app, deps);
  readRoutes(app, deps);
};

type Line = (typeof reconciliationLineSchema)['_output'];

/** A report with its counts per reason and, when asked, its lines. */
async function presented(em: EntityManager, organizationId: string, id: string) {
  const report = isUuid(id) ? await findReport(em, organizationId, id) : null;
  if (!report) throw notFound('Reconciliation');
  const [lines, counts] = await Promise.all([linesOf(em, report.id), reasonCountsOf(em, [report.id])]);
  return {
    ...presentReconciliation(report),
    reason_counts: counts.get(report.id)!,
    lines: lines.map((line) => presentReconciliationLine(line) as Line),
  };
}

/** POST /: one organization's day reconciled now, answered with its report (or 202 while the ledger is not ready). */
function runRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate(WRITE),
      schema: {
        tags,
        summary: "Reconcile a day of the organization's books with the gateway's ledger",
        description:
          "Runs the reconciliation workflow for the caller's organization and one UTC day (today at the latest: " +
          'its report covers what has moved so far) and answers with the report and its lines (201). The workflow ' +
          "waits for the gateway's ledger, which Mercado Pago builds in minutes: when the report is not written " +
          'within RECONCILIATION_REPORT_WAIT_MS (20 s by default) the answer is 202, the run goes on, and its report is listed under ' +
          'GET /reconciliations?day=<day> (the Location header) once written. Each call is a run of its own, with ' +
          'a report of its own; the daily run (04:00 UTC, yesterday) writes one too.',
        body: createReconciliationBody,
        response: {
          201: reconciliationDetail,
          202: reconciliationPending,
          ...errorResponses,
          422: reconciliationValidationErrors,
        },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const { day } = request.body;
      const refusal = reconciliationDayRefusal(day, new Date());
      if (refusal) throw unprocessable(refusal.code, refusal.message, refusal.detail);
      const runId = uuidv7();
      const handle = await deps.temporal.workflow.start<ReconciliationWorkflow>('reconciliationWorkflow', {
        workflowId: reconciliationWorkflowId(organizationId, day, runId),
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [{ organizationId, day }],
        typedSearchAttributes: [{ key: ORGANIZATION_ID, value: organizationId }],
      });
      const outcome = await resultWithin(deps, () => handle.result());
      const report = outcome?.reports.find((r) => r.organizationId === organizationId);
      if (!report) {
        return reply
          .status(202)
          .header('location', `/api/v1/reconciliations?day=${day}`)
          .send({
            status: 'running' as const,
            day,
            run_id: runId,
            detail:
              "The gateway's ledger is not ready yet; the report is listed under GET /reconciliations once written",
          });
      }
      const body = await presented(deps.orm.em.fork(), organizationId, report.id);
      return reply.status(201).header('location', `/api/v1/reconciliations/${report.id}`).send(body);
    },
  );
}

/**
 * The run's outcome, or null once RECONCILIATION_REPORT_WAIT_MS have passed (the run goes on): the
 * wait for its history is cancelled then, not left open.
 */
async function resultWithin<T>(deps: RouteDeps, result: () => Promise<T>): Promise<T | null> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), deps.config.RECONCILIATION_REPORT_WAIT_MS).unref();
  try {
    return await deps.temporal.connection.withAbortSignal(deadline.signal, result);
  } catch (err) {
    if (deadline.signal.aborted) return null;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** GET /, GET /:id and GET /:id/lines.csv. */
function readRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'List reconciliation reports',
        description:
          'Newest day first (sorting: day or -day), the newest run of a day first. Filters: day, status. Each ' +
          'report counts its unmatched lines per reason.',
        querystring: listReconciliationsQuery,
        response: { 200: reconciliationPage, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const direction = orderBy(q.sorting, { day: 'day' }, '-day').day!;
      const filter: ReportFilter = { organizationId, day: q.day, status: q.status };
      const em = deps.orm.em.fork();
      const { rows, total } = await listReports(em, filter, { limit: q.limit, offset: pageOffset(q), direction });
      const counts = await reasonCountsOf(
        em,
        rows.map((r) => r.id),
      );
      const items = rows.map((r) => ({ ...presentReconciliation(r), reason_counts: counts.get(r.id)! }));
      return pageOf(items, total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: 'Get a reconciliation report with its lines',
        params: reconciliationParams,
        response: { 200: reconciliationDetail, ...errorResponses },
      },
    },
    async (request) => presented(deps.orm.em.fork(), organizationCredential(request).organizationId, request.params.id),
  );

  app.get(
    '/:id/lines.csv',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags,
        summary: "Download a report's lines as CSV",
        operationId: 'downloadReconciliationLines',
        description:
          'text/csv (RFC 4180, CRLF): a header row `kind,gateway_id,reference,ours,theirs,difference,reason,repair`, ' +
          'then one row per line in the report’s order; cents as integers, empty cells for nulls.',
        params: reconciliationParams,
        response: {
          200: {
            description: "The report's lines, one CSV row each",
            content: { 'text/csv': { schema: z.string() } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const report = await presented(deps.orm.em.fork(), organizationId, request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="reconciliation-${report.day}-${report.id}.csv"`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(linesCsv(report.lines));
    },
  );
}
