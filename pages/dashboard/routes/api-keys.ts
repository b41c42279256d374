import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { unchecked, type RequestBody } from '../api-client.ts';
import type { Notice } from '../layout.ts';
import { apiKeysContent, revokeConfirmation, type ApiKeysView } from '../api-keys.ts';
import { accessMessages } from '../messages-settings-access.ts';
import { dashboardPaths } from '../paths.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';
import { formList, organizationParams } from './forms.ts';
import { shownOnce } from './shown-once.ts';

const keyParams = organizationParams.extend({ id: z.string().max(64) });
const createForm = z.object({
  csrf: z.string().max(200).optional(),
  name: z.string().max(200).optional(),
  environment: z.string().max(10).optional(),
  scopes: formList,
  expires_on: z.string().max(20).optional(),
});
const doneQuery = z.object({ done: z.string().max(20).optional() });

type CreatedKey = NonNullable<ApiKeysView['created']>;

const ofOrganization = (organizationId: string) => ({ params: { path: { organization_id: organizationId } } });
const KEYS = '/api/v1/dashboard/organizations/{organization_id}/api-keys';
type NewKey = RequestBody<typeof KEYS, 'post'>;

/** The new key's one showing, from the creation's post to the page after its redirect (shown-once.ts). */
const createdKey = (organizationId: string) =>
  shownOnce<CreatedKey>('dashboard_new_key', dashboardPaths.section(organizationId, 'api-keys'));

/** The end of a chosen day in Brasília (UTC−3): a key given a date works through that whole day. */
const endOfDay = (date: string | undefined) =>
  date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? new Date(`${date}T23:59:59.999-03:00`).toISOString() : undefined;

/** API keys (spec, Authentication → API keys) through the API's own dashboard routes, as the signed-in user. */
type KeysPage = (
  reply: FastifyReply,
  visit: MemberVisit,
  extra: Partial<ApiKeysView> & { notice?: Notice | null },
  status?: number,
) => Promise<FastifyReply>;

export function apiKeyPageRoutes(app: RouteApp, deps: RouteDeps): void {
  const page: KeysPage = async (reply, visit, extra, status = 200) => {
    const list = await visit.api.user.GET(KEYS, ofOrganization(visit.organization.id));
    const { notice, ...view } = extra;
    return sendSection(
      reply,
      visit,
      'api-keys',
      {
        title: accessMessages(visit.locale).apiKeys.title,
        // A member sees why there is nothing here: only the owner or an admin manages keys.
        notice: list.data ? (notice ?? null) : refusalNotice(list, visit.locale),
        children: apiKeysContent({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          keys: list.data ?? null,
          ...view,
        }),
      },
      list.data ? status : list.response.status,
    );
  };

  app.get(
    '/dashboard/:organization_id/api-keys',
    { schema: { hide: true, params: organizationParams, querystring: doneQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const t = accessMessages(visit.locale).apiKeys;
      const created = createdKey(visit.organization.id).take(request, reply);
      if (created) return page(reply, visit, { created, notice: { kind: 'status', title: t.createdNotice } });
      return page(reply, visit, { notice: doneNotice(request.query.done, t.done) });
    },
  );

  app.post(
    '/dashboard/:organization_id/api-keys',
    { schema: { hide: true, params: organizationParams, body: createForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const form = request.body ?? {};
      const created = await visit.api.user.POST(KEYS, {
        ...ofOrganization(visit.organization.id),
        body: {
          name: form.name ?? '',
          environment: unchecked<NewKey['environment']>(form.environment),
          scopes: unchecked<NewKey['scopes']>(form.scopes),
          ...(endOfDay(form.expires_on) ? { expires_at: endOfDay(form.expires_on) } : {}),
        },
      });
      if (!created.data) {
        return page(
          reply,
          visit,
          { values: form, notice: refusalNotice(created, visit.locale) },
          created.response.status,
        );
      }
      // Post, redirect, get: a reload does not make a second key. The secret crosses the redirect in a
      // cookie that the next page reads once and clears, so it never enters an address or the history.
      createdKey(visit.organization.id).put(reply, created.data);
      return reply.redirect(dashboardPaths.section(visit.organization.id, 'api-keys'), 303);
    },
  );

  revokeRoutes(app, deps, page);
}

/** A key's revocation: its confirmation page, then the post that revokes it. */
function revokeRoutes(app: RouteApp, deps: RouteDeps, page: KeysPage): void {
  app.get(
    '/dashboard/:organization_id/api-keys/:id/revoke',
    { schema: { hide: true, params: keyParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const list = await visit.api.user.GET(KEYS, ofOrganization(visit.organization.id));
      const key = list.data?.active.find((k) => k.id === request.params.id);
      if (!key) return reply.redirect(dashboardPaths.section(visit.organization.id, 'api-keys'), 303);
      return sendSection(reply, visit, 'api-keys', {
        title: accessMessages(visit.locale).apiKeys.revokeTitle,
        children: revokeConfirmation({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          key,
        }),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/api-keys/:id/revoke',
    { schema: { hide: true, params: keyParams, body: z.object({ csrf: z.string().max(200).optional() }) } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const revoked = await visit.api.user.POST(
        '/api/v1/dashboard/organizations/{organization_id}/api-keys/{id}/revoke',
        {
          params: { path: { organization_id: visit.organization.id, id: request.params.id } },
        },
      );
      if (!revoked.data)
        return page(reply, visit, { notice: refusalNotice(revoked, visit.locale) }, revoked.response.status);
      return reply.redirect(`${dashboardPaths.section(visit.organization.id, 'api-keys')}?done=revoked`, 303);
    },
  );
}
