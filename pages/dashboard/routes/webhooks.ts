import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { WebhooksView } from '../webhooks.ts';
import { webhooksContent, webhooksPath, endpointPath } from '../webhooks.ts';
import { deleteConfirmation } from '../webhook-endpoint.ts';
import type { Notice } from '../layout.ts';
import { settingsMessages } from '../messages-settings.ts';
import { subscribableEventTypes } from '../../../api/schemas/webhooks.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { organizationParams } from './forms.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';
import { webhookEndpointPageRoutes } from './webhook-endpoint.ts';
import { csrfOnly, endpointBody, endpointForm, endpointParams, putSecret } from './webhook-forms.ts';

const listQuery = z.object({
  done: z.string().max(20).optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
});

const PAGE_SIZE = 20;

type ListPage = (
  reply: FastifyReply,
  visit: MemberVisit,
  extra: { page?: number; values?: WebhooksView['values']; notice?: Notice | null },
  status?: number,
) => Promise<FastifyReply>;

const byId = (id: string) => ({ params: { path: { id } } });

/** Webhook endpoints (spec, Events: /webhooks/), through the API's own routes as the member. */
export function webhookPageRoutes(app: RouteApp, deps: RouteDeps): void {
  const page: ListPage = async (reply, visit, extra, status = 200) => {
    const current = extra.page ?? 1;
    const list = await visit.api.member.GET('/api/v1/webhooks', {
      params: { query: { page: current, limit: PAGE_SIZE } },
    });
    return sendSection(
      reply,
      visit,
      'webhooks',
      {
        title: settingsMessages(visit.locale).webhooks.title,
        notice: list.data ? (extra.notice ?? null) : refusalNotice(list, visit.locale),
        children: webhooksContent({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          endpoints: list.data
            ? { items: list.data.items, page: current, maxPage: list.data.pagination.max_page }
            : null,
          eventTypes: subscribableEventTypes,
          values: extra.values,
        }),
      },
      list.data ? status : list.response.status,
    );
  };

  app.get(
    '/dashboard/:organization_id/webhooks',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      return page(reply, visit, {
        page: request.query.page,
        notice: doneNotice(request.query.done, settingsMessages(visit.locale).webhooks.done),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/webhooks',
    { schema: { hide: true, params: organizationParams, body: endpointForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { body, values } = endpointBody(request.body);
      const created = await visit.api.member.POST('/api/v1/webhooks', { body });
      if (!created.data) {
        return page(reply, visit, { values, notice: refusalNotice(created, visit.locale) }, created.response.status);
      }
      // Post, redirect, get: the secret crosses the redirect in a cookie the endpoint's page reads once.
      putSecret(reply, visit.organization.id, { endpoint_id: created.data.id, secret: created.data.secret });
      return reply.redirect(`${endpointPath(visit.organization.id, created.data.id)}?done=created`, 303);
    },
  );

  deleteRoutes(app, deps, page);
  webhookEndpointPageRoutes(app, deps);
}

/** An endpoint's deletion: its confirmation page, then the post that deletes it. */
function deleteRoutes(app: RouteApp, deps: RouteDeps, page: ListPage): void {
  app.get(
    '/dashboard/:organization_id/webhooks/:id/delete',
    { schema: { hide: true, params: endpointParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const endpoint = await visit.api.member.GET('/api/v1/webhooks/{id}', byId(request.params.id));
      if (!endpoint.data) {
        return page(reply, visit, { notice: refusalNotice(endpoint, visit.locale) }, endpoint.response.status);
      }
      return sendSection(reply, visit, 'webhooks', {
        title: settingsMessages(visit.locale).webhooks.deleteTitle,
        children: deleteConfirmation({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          endpoint: endpoint.data,
        }),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/webhooks/:id/delete',
    { schema: { hide: true, params: endpointParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const deleted = await visit.api.member.DELETE('/api/v1/webhooks/{id}', byId(request.params.id));
      const status = deleted.response.status;
      if (status !== 204) return page(reply, visit, { notice: refusalNotice(deleted, visit.locale) }, status);
      return reply.redirect(`${webhooksPath(visit.organization.id)}?done=deleted`, 303);
    },
  );
}
