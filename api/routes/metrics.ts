import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { UnknownTimeZone } from '../../db/metric-periods.ts';
import { figuresOf, knownTimeZone, rangeRefusal, totalsOf } from '../../domain/metrics.ts';
import { unprocessable } from '../../use-cases/errors.ts';
import { reportPeriods } from '../../use-cases/metrics-report.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses } from '../../use-cases/schemas/common.ts';
import { metricsQuery, metricsReport, metricsValidationErrors, presentPeriod } from '../schemas/metrics.ts';
import type { RouteDeps } from '../route-deps.ts';

// The spec's read scope of API keys names other resources: metrics fall to admin (as the event log does).
const READ = { oat: ['metrics:read'], apiKey: 'other' } as const;

const invalidTimeZone = (name: string) =>
  unprocessable(
    'invalid_timezone',
    'Unknown time zone',
    `timezone must be an IANA time zone name such as America/Sao_Paulo or UTC; got ${JSON.stringify(name)}`,
  );

/** The organization's figures per period of a local date range, each owner summing its own records (use-cases/metrics-report.ts). */
export const metricsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags: ['metrics'],
        summary: 'Get metrics',
        operationId: 'getMetrics',
        description:
          'Revenue, refunds, sales, subscriptions, MRR and checkout conversion per period of a local date range, ' +
          'with totals over the range. Periods are read in `timezone` (default America/Sao_Paulo): a sale at ' +
          '02:30 UTC on 2 March counts on 1 March there. Money in integer cents, in one currency.',
        querystring: metricsQuery,
        response: { 200: metricsReport, ...errorResponses, 422: metricsValidationErrors },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const refusal = rangeRefusal(q.start_date, q.end_date, q.interval);
      if (refusal) throw unprocessable(refusal.code, refusal.message, refusal.detail);
      const timeZone = knownTimeZone(q.timezone);
      if (!timeZone) throw invalidTimeZone(q.timezone);
      let rows;
      try {
        rows = await reportPeriods(deps.orm.em.fork(), {
          organizationId,
          startDate: q.start_date,
          endDate: q.end_date,
          interval: q.interval,
          timeZone,
          currency: q.currency,
          productId: q.product_id ?? null,
          customerId: q.customer_id ?? null,
        });
      } catch (err) {
        if (err instanceof UnknownTimeZone) throw invalidTimeZone(q.timezone);
        throw err;
      }
      return {
        start_date: q.start_date,
        end_date: q.end_date,
        interval: q.interval,
        timezone: timeZone,
        currency: q.currency,
        periods: rows.map((row) => presentPeriod(row, figuresOf(row))),
        totals: totalsOf(rows),
      };
    },
  );
};
