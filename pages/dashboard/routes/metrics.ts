import { z } from 'zod';
import { DEFAULT_METRICS_TIME_ZONE, type MetricInterval } from '../../../domain/metrics.ts';
import { unchecked } from '../api-client.ts';
import { metricsMessages } from '../messages-metrics.ts';
import { metricsContent, type MetricsChoice } from '../metrics.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { organizationParams } from './forms.ts';
import { refusalNotice, sectionVisit, sendSection } from './visit.ts';

const choiceQuery = z.object({
  start_date: z.string().max(20).optional(),
  end_date: z.string().max(20).optional(),
  interval: z.string().max(10).optional(),
  timezone: z.string().max(64).optional(),
});

/** The range a first visit shows: the last 30 days, by day. */
const DEFAULT_DAYS = 30;

/** Today's date (YYYY-MM-DD) in `timeZone`; in the default zone when the name is not one (the API says so). */
function todayIn(timeZone: string, now = new Date()): string {
  const format = (zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(now);
  try {
    return format(timeZone);
  } catch {
    return format(DEFAULT_METRICS_TIME_ZONE);
  }
}

const daysBefore = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/** The form's choice, each field left empty taking its default. */
function choiceOf(query: z.infer<typeof choiceQuery>): MetricsChoice {
  const timezone = query.timezone || DEFAULT_METRICS_TIME_ZONE;
  const end = query.end_date || todayIn(timezone);
  return {
    start_date: query.start_date || daysBefore(end, DEFAULT_DAYS - 1),
    end_date: end,
    interval: query.interval || 'day',
    timezone,
  };
}

/** Metrics (GET /api/v1/metrics/) as charts and tables, over the range the form picks. */
export function metricsPageRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/metrics',
    { schema: { hide: true, params: organizationParams, querystring: choiceQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const choice = choiceOf(request.query);
      const report = await visit.api.member.GET('/api/v1/metrics', {
        params: { query: { ...choice, interval: unchecked<MetricInterval>(choice.interval) } },
      });
      const ok = report.data !== undefined;
      return sendSection(
        reply,
        visit,
        'metrics',
        {
          title: metricsMessages(visit.locale).title,
          notice: ok ? null : refusalNotice(report, visit.locale),
          styles: ['uplot.css'],
          scripts: ok ? ['uplot.js', 'metrics.js'] : [],
          children: metricsContent({
            locale: visit.locale,
            organizationId: visit.organization.id,
            choice,
            report: report.data ?? null,
          }),
        },
        report.response.status,
      );
    },
  );
}
