import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { ApiAnswer } from '../api-client.ts';
import type { Notice } from '../layout.ts';
import type { Delivery, DeliveriesView } from '../webhook-deliveries.ts';
import { editEndpointContent, endpointContent, rotateConfirmation } from '../webhook-endpoint.ts';
import { settingsMessages } from '../messages-settings.ts';
import { endpointPath, webhooksPath, type EndpointValues } from '../webhooks.ts';
import { html } from '../../render.ts';
import { subscribableEventTypes } from '../../../api/schemas/webhooks.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';
import { csrfOnly, endpointBody, endpointForm, endpointParams, putSecret, takeSecret } from './webhook-forms.ts';

const pageQuery = z.object({
  done: z.string().max(20).optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
});
const redeliverForm = z.object({ csrf: z.string().max(200).optional(), event_id: z.string().max(64).optional() });

const DELIVERIES_PER_PAGE = 10;

const byId = (id: string) => ({ params: { path: { id } } });
const endpointOf = (visit: MemberVisit, id: string) => visit.api.member.GET('/api/v1/webhooks/{id}', byId(id));

/** A page of the endpoint's deliveries, newest first, each read with its attempts; or the API's refusal. */
async function deliveriesOf(
  visit: MemberVisit,
  endpointId: string,
  page: number,
): Promise<{ view: DeliveriesView } | { refusal: ApiAnswer }> {
  const list = await visit.api.member.GET('/api/v1/webhook-deliveries', {
    params: { query: { endpoint_id: endpointId, page, limit: DELIVERIES_PER_PAGE } },
  });
  if (!list.data) return { refusal: list };
  const details = await Promise.all(
    list.data.items.map((d) => visit.api.member.GET('/api/v1/webhook-deliveries/{id}', byId(d.id))),
  );
  const deliveries: Delivery[] = list.data.items.map((d, i) => details[i]!.data ?? { ...d, attempt_log: [] });
  const base = { locale: visit.locale, organizationId: visit.organization.id, csrf: visit.csrf };
  return { view: { ...base, endpointId, deliveries, page, maxPage: list.data.pagination.max_page } };
}

/** The endpoint's page: its record, the secret just made (if any), its deliveries. */
async function endpointPage(
  reply: FastifyReply,
  visit: MemberVisit,
  id: string,
  extra: { page?: number; notice?: Notice | null; secret?: string },
  status = 200,
): Promise<FastifyReply> {
  const endpoint = await endpointOf(visit, id);
  if (!endpoint.data) return missingEndpoint(reply, visit, endpoint);
  const deliveries = await deliveriesOf(visit, endpoint.data.id, extra.page ?? 1);
  const refused = 'refusal' in deliveries;
  return sendSection(
    reply,
    visit,
    'webhooks',
    {
      title: settingsMessages(visit.locale).endpoint.title,
      notice: refused ? refusalNotice(deliveries.refusal, visit.locale) : (extra.notice ?? null),
      children: endpointContent({
        locale: visit.locale,
        organizationId: visit.organization.id,
        csrf: visit.csrf,
        endpoint: endpoint.data,
        secret: extra.secret,
        deliveries: refused ? null : deliveries.view,
      }),
    },
    refused ? deliveries.refusal.response.status : status,
  );
}

/** An endpoint the API does not show (another organization's, deleted): its refusal, and the way back. */
function missingEndpoint(reply: FastifyReply, visit: MemberVisit, answer: ApiAnswer): FastifyReply {
  const t = settingsMessages(visit.locale).endpoint;
  return sendSection(
    reply,
    visit,
    'webhooks',
    {
      title: t.title,
      notice: refusalNotice(answer, visit.locale),
      children: html`<p><a href=${webhooksPath(visit.organization.id)}>${t.allEndpoints}</a></p>`,
    },
    answer.response.status,
  );
}

/** The edit page, with the form's values after a refusal. */
async function editPage(
  reply: FastifyReply,
  visit: MemberVisit,
  id: string,
  extra: { values?: EndpointValues; notice?: Notice },
  status = 200,
): Promise<FastifyReply> {
  const endpoint = await endpointOf(visit, id);
  if (!endpoint.data) return missingEndpoint(reply, visit, endpoint);
  const organizationId = visit.organization.id;
  return sendSection(
    reply,
    visit,
    'webhooks',
    {
      title: settingsMessages(visit.locale).endpoint.edit,
      notice: extra.notice ?? null,
      children: editEndpointContent({
        locale: visit.locale,
        organizationId,
        csrf: visit.csrf,
        endpoint: endpoint.data,
        eventTypes: subscribableEventTypes,
        values: extra.values,
      }),
    },
    status,
  );
}

/** One endpoint's pages: the endpoint with its deliveries, edit (PATCH), test event, redelivery, new secret. */
export function webhookEndpointPageRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/dashboard/:organization_id/webhooks/:id',
    { schema: { hide: true, params: endpointParams, querystring: pageQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const secret = takeSecret(request, reply, visit.organization.id, id);
      const notice = doneNotice(request.query.done, settingsMessages(visit.locale).endpoint.done);
      return endpointPage(reply, visit, id, { page: request.query.page, notice, secret });
    },
  );

  app.get(
    '/dashboard/:organization_id/webhooks/:id/edit',
    { schema: { hide: true, params: endpointParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      return editPage(reply, visit, request.params.id, {});
    },
  );

  app.post(
    '/dashboard/:organization_id/webhooks/:id/edit',
    { schema: { hide: true, params: endpointParams, body: endpointForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const { body, values } = endpointBody(request.body);
      const updated = await visit.api.member.PATCH('/api/v1/webhooks/{id}', { ...byId(id), body });
      if (!updated.data)
        return editPage(
          reply,
          visit,
          id,
          { values, notice: refusalNotice(updated, visit.locale) },
          updated.response.status,
        );
      return reply.redirect(`${endpointPath(visit.organization.id, id)}?done=updated`, 303);
    },
  );

  actionRoutes(app, deps);
}

/** The posts of the endpoint's page: a test event, a redelivery, and a new secret behind its confirmation. */
function actionRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/dashboard/:organization_id/webhooks/:id/ping',
    { schema: { hide: true, params: endpointParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const pinged = await visit.api.member.POST('/api/v1/webhooks/{id}/ping', byId(id));
      if (pinged.response.status !== 202)
        return endpointPage(reply, visit, id, { notice: refusalNotice(pinged, visit.locale) }, pinged.response.status);
      return reply.redirect(`${endpointPath(visit.organization.id, id)}?done=pinged`, 303);
    },
  );

  app.post(
    '/dashboard/:organization_id/webhooks/:id/redeliver',
    { schema: { hide: true, params: endpointParams, body: redeliverForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const queued = await visit.api.member.POST('/api/v1/webhooks/{id}/redeliver', {
        ...byId(id),
        body: { event_id: request.body.event_id ?? '' },
      });
      if (queued.response.status !== 202)
        return endpointPage(reply, visit, id, { notice: refusalNotice(queued, visit.locale) }, queued.response.status);
      return reply.redirect(`${endpointPath(visit.organization.id, id)}?done=redelivered`, 303);
    },
  );

  app.get(
    '/dashboard/:organization_id/webhooks/:id/secret',
    { schema: { hide: true, params: endpointParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const endpoint = await endpointOf(visit, request.params.id);
      if (!endpoint.data) return missingEndpoint(reply, visit, endpoint);
      return sendSection(reply, visit, 'webhooks', {
        title: settingsMessages(visit.locale).endpoint.rotateTitle,
        children: rotateConfirmation({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          endpoint: endpoint.data,
        }),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/webhooks/:id/secret',
    { schema: { hide: true, params: endpointParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { id } = request.params;
      const rotated = await visit.api.member.POST('/api/v1/webhooks/{id}/secret', byId(id));
      if (!rotated.data)
        return endpointPage(
          reply,
          visit,
          id,
          { notice: refusalNotice(rotated, visit.locale) },
          rotated.response.status,
        );
      putSecret(reply, visit.organization.id, { endpoint_id: rotated.data.id, secret: rotated.data.secret });
      return reply.redirect(`${endpointPath(visit.organization.id, id)}?done=rotated`, 303);
    },
  );
}
