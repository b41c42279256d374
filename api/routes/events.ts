import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { getEvent, listEvents } from '../../db/event/events.ts';
import { notFound } from '../../use-cases/errors.ts';
import { organizationCredential } from '../plugins/auth.ts';
import { errorResponses, orderBy, pageOf, pageOffset, paginated, isUuid } from '../../use-cases/schemas/common.ts';
import { eventIdParams, eventRecord, eventSchema, listEventsQuery } from '../schemas/events.ts';
import type { RouteDeps } from '../route-deps.ts';

// The spec grants API keys read/write only on named resources; the event log falls to admin.
const READ = { oat: ['events:read'], apiKey: 'events' } as const;

export const eventsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags: ['events'],
        summary: 'List events',
        description:
          "The organization's event log. type: an exact type (customer.created) or a prefix ending in .* (customer.*); " +
          'created_after / created_before: a range of creation instants; object_id: the events about one record ' +
          '(its id in data.id). sorting: created_at or -created_at (default).',
        querystring: listEventsQuery,
        response: { 200: paginated(eventSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const q = request.query;
      const prefix = q.type?.endsWith('.*');
      const { events, total } = await listEvents(
        deps.orm.em.fork(),
        organizationId,
        {
          type: prefix ? undefined : q.type,
          typePrefix: prefix ? q.type!.slice(0, -1) : undefined,
          createdAfter: q.created_after === undefined ? undefined : new Date(q.created_after),
          createdBefore: q.created_before === undefined ? undefined : new Date(q.created_before),
          objectId: q.object_id,
        },
        {
          orderBy: orderBy(q.sorting, { created_at: 'createdAt' }, '-created_at'),
          limit: q.limit,
          offset: pageOffset(q),
        },
      );
      return pageOf(events.map(eventRecord), total, q.limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate(READ),
      schema: {
        tags: ['events'],
        summary: 'Get an event',
        params: eventIdParams,
        response: { 200: eventSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { organizationId } = organizationCredential(request);
      const { id } = request.params;
      if (!isUuid(id)) throw notFound('Event');
      const event = await getEvent(deps.orm.em.fork(), organizationId, id);
      if (!event) throw notFound('Event');
      return eventRecord(event);
    },
  );
};
