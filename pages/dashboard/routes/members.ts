import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { DashboardMember } from '../../../api/schemas/organizations.ts';
import { unchecked, type RequestBody } from '../api-client.ts';
import type { Notice } from '../layout.ts';
import { membersContent, removalConfirmation, type MembersView } from '../members.ts';
import { accessMessages } from '../messages-settings-access.ts';
import { dashboardPaths } from '../paths.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { organizationParams, pageNumberOf } from './forms.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const memberParams = organizationParams.extend({ email: z.string().max(320) });
const addForm = z.object({
  csrf: z.string().max(200).optional(),
  email: z.string().max(400).optional(),
  role: z.string().max(20).optional(),
});
const listQuery = z.object({ done: z.string().max(20).optional(), page: z.string().max(10).optional() });
const csrfOnly = z.object({ csrf: z.string().max(200).optional() });

const SECTION = 'members';
const PAGE_SIZE = 50;
/** The list with roles (api/routes/dashboard-members.ts); additions and removals go through the spec's routes. */
const listOf = (organizationId: string, page: number, limit: number) => ({
  params: { path: { organization_id: organizationId }, query: { page, limit } },
});
const LIST = '/api/v1/dashboard/organizations/{organization_id}/members';
type NewMember = RequestBody<'/api/v1/organizations/{id}/members', 'post'>;
const sectionPath = (organizationId: string) => dashboardPaths.section(organizationId, SECTION);

type MembersPage = (
  reply: FastifyReply,
  visit: MemberVisit,
  extra: Partial<MembersView> & { notice?: Notice | null },
  status?: number,
) => Promise<FastifyReply>;

/** The organization's members (spec: GET/POST/DELETE /organizations/:id/members), as the signed-in user. */
export function memberPageRoutes(app: RouteApp, deps: RouteDeps): void {
  const page: MembersPage = async (reply, visit, extra, status = 200) => {
    const { notice, page: pageNumber = 1, ...view } = extra;
    const list = await visit.api.user.GET(LIST, listOf(visit.organization.id, pageNumber, PAGE_SIZE));
    const ok = list.data !== undefined;
    return sendSection(
      reply,
      visit,
      SECTION,
      {
        title: accessMessages(visit.locale).members.title,
        notice: ok ? (notice ?? null) : refusalNotice(list, visit.locale),
        children: membersContent({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          email: visit.user.email,
          page: pageNumber,
          members: list.data ?? null,
          ...view,
        }),
      },
      ok ? status : list.response.status,
    );
  };

  app.get(
    '/dashboard/:organization_id/members',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const pageNumber = pageNumberOf(request.query.page);
      return page(reply, visit, {
        page: pageNumber,
        notice: doneNotice(request.query.done, accessMessages(visit.locale).members.done),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/members',
    { schema: { hide: true, params: organizationParams, body: addForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const form = request.body ?? {};
      const added = await visit.api.user.POST('/api/v1/organizations/{id}/members', {
        params: { path: { id: visit.organization.id } },
        body: { email: (form.email ?? '').trim(), role: unchecked<NewMember['role']>(form.role || undefined) },
      });
      if (!added.data) {
        return page(reply, visit, { values: form, notice: refusalNotice(added, visit.locale) }, added.response.status);
      }
      return reply.redirect(`${sectionPath(visit.organization.id)}?done=added`, 303);
    },
  );

  removalRoutes(app, deps, page);
}

/** The member of `email`, read from the list (the API has no read of one member). */
async function findMember(visit: MemberVisit, email: string): Promise<DashboardMember | undefined> {
  for (let pageNumber = 1; pageNumber <= 50; pageNumber++) {
    const list = await visit.api.user.GET(LIST, listOf(visit.organization.id, pageNumber, 100));
    if (!list.data) return undefined;
    const member = list.data.items.find((m) => m.email.toLowerCase() === email.toLowerCase());
    if (member || pageNumber >= list.data.pagination.max_page) return member;
  }
  return undefined;
}

/** A member's removal: its confirmation page, then the post that removes them. */
function removalRoutes(app: RouteApp, deps: RouteDeps, page: MembersPage): void {
  app.get(
    '/dashboard/:organization_id/members/:email/remove',
    { schema: { hide: true, params: memberParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const member = await findMember(visit, request.params.email);
      if (!member) return reply.redirect(sectionPath(visit.organization.id), 303);
      const yourself = member.email.toLowerCase() === visit.user.email.toLowerCase();
      const t = accessMessages(visit.locale).members;
      return sendSection(reply, visit, SECTION, {
        title: yourself ? t.leaveTitle : t.removeTitle,
        children: removalConfirmation({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          member,
          yourself,
        }),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/members/:email/remove',
    { schema: { hide: true, params: memberParams, body: csrfOnly } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const { email } = request.params;
      const removed = await visit.api.user.DELETE('/api/v1/organizations/{id}/members/{email}', {
        params: { path: { id: visit.organization.id, email } },
      });
      const status = removed.response.status;
      if (status !== 204) return page(reply, visit, { notice: refusalNotice(removed, visit.locale) }, status);
      // Who leaves has no members page to come back to: the organization picker instead.
      if (email.toLowerCase() === visit.user.email.toLowerCase()) return reply.redirect(dashboardPaths.home, 303);
      return reply.redirect(`${sectionPath(visit.organization.id)}?done=removed`, 303);
    },
  );
}
