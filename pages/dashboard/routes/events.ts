import { z } from 'zod';
import { eventDetails, eventsContent, type EventFilters } from '../events.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { settingsMessages } from '../messages-settings.ts';
import { organizationParams, pageNumberOf } from './forms.ts';
import { refusalNotice, sectionVisit, sendSection } from './visit.ts';

const filtersQuery = z.object({
  type: z.string().max(100).optional(),
  object_id: z.string().max(64).optional(),
  from: z.string().max(20).optional(),
  to: z.string().max(20).optional(),
  page: z.string().max(10).optional(),
});
const eventParams = organizationParams.extend({ id: z.string().max(64) });

const PAGE_SIZE = 25;

/** The midnight that starts local day `date` (+ `days`) in Brasília (UTC−3), as the API's instant. */
function brasiliaMidnight(date: string | undefined, days = 0): string | undefined {
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const at = new Date(`${date}T00:00:00-03:00`);
  if (Number.isNaN(at.getTime())) return undefined;
  return new Date(at.getTime() + days * 86_400_000).toISOString();
}

/** The event log (GET /api/v1/events/, GET /api/v1/events/:id) as the member reads it. */
export function eventPageRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/events',
    { schema: { hide: true, params: organizationParams, querystring: filtersQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const q = request.query;
      const filters: EventFilters = {
        type: q.type || undefined,
        object_id: q.object_id || undefined,
        from: q.from,
        to: q.to,
      };
      const page = pageNumberOf(q.page);
      const events = await visit.api.member.GET('/api/v1/events', {
        params: {
          query: {
            type: filters.type,
            object_id: filters.object_id,
            created_after: brasiliaMidnight(filters.from),
            created_before: brasiliaMidnight(filters.to, 1),
            page,
            limit: PAGE_SIZE,
          },
        },
      });
      const ok = events.data !== undefined;
      return sendSection(
        reply,
        visit,
        'events',
        {
          title: settingsMessages(visit.locale).events.title,
          notice: ok ? null : refusalNotice(events, visit.locale),
          children: eventsContent({
            locale: visit.locale,
            organizationId: visit.organization.id,
            userId: visit.user.userId,
            filters,
            page,
            events: events.data ?? null,
          }),
        },
        events.response.status,
      );
    },
  );

  app.get(
    '/dashboard/:organization_id/events/:id',
    { schema: { hide: true, params: eventParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const t = settingsMessages(visit.locale).events;
      const event = await visit.api.member.GET('/api/v1/events/{id}', { params: { path: { id: request.params.id } } });
      if (!event.data) {
        return sendSection(
          reply,
          visit,
          'events',
          { title: t.event, notice: refusalNotice(event, visit.locale), children: null },
          event.response.status,
        );
      }
      return sendSection(reply, visit, 'events', {
        title: t.eventOf(event.data.type),
        children: eventDetails({
          locale: visit.locale,
          organizationId: visit.organization.id,
          userId: visit.user.userId,
          event: event.data,
        }),
      });
    },
  );
}
