import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AccessTokenRecord } from '../../../api/schemas/credentials.ts';
import { unchecked, type RequestBody } from '../api-client.ts';
import type { Notice } from '../layout.ts';
import { accessTokensContent, revokeTokenConfirmation, type AccessTokensView } from '../access-tokens.ts';
import { accessMessages } from '../messages-settings-access.ts';
import { dashboardPaths } from '../paths.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';
import { formList, organizationParams, pageNumberOf } from './forms.ts';
import { shownOnce } from './shown-once.ts';
import { doneNotice, refusalNotice, sectionVisit, sendSection, type MemberVisit } from './visit.ts';

const tokenParams = organizationParams.extend({ id: z.string().max(64) });
const createForm = z.object({
  csrf: z.string().max(200).optional(),
  comment: z.string().max(400).optional(),
  scopes: formList,
  expires_in_days: z.string().max(10).optional(),
});
const listQuery = z.object({ done: z.string().max(20).optional(), page: z.string().max(10).optional() });

type CreatedToken = NonNullable<AccessTokensView['created']>;

const SECTION = 'access-tokens';
const PAGE_SIZE = 25;
const TOKENS = '/api/v1/dashboard/organizations/{organization_id}/access-tokens';
const listOf = (organizationId: string, page: number, limit: number) => ({
  params: { path: { organization_id: organizationId }, query: { page, limit } },
});
const sectionPath = (organizationId: string) => dashboardPaths.section(organizationId, SECTION);
const createdToken = (organizationId: string) =>
  shownOnce<CreatedToken>('dashboard_new_token', sectionPath(organizationId));

/** The form's expiry: a whole number of days as the API takes it; empty for none (never expires). */
const daysOf = (text: string | undefined) => (text?.trim() ? Number(text.trim()) : undefined);

type TokensPage = (
  reply: FastifyReply,
  visit: MemberVisit,
  extra: Partial<AccessTokensView> & { notice?: Notice | null },
  status?: number,
) => Promise<FastifyReply>;

/** Organization Access Tokens through the API's own dashboard routes, as the signed-in user. */
export function accessTokenPageRoutes(app: RouteApp, deps: RouteDeps): void {
  const page: TokensPage = async (reply, visit, extra, status = 200) => {
    const { notice, page: pageNumber = 1, ...view } = extra;
    const list = await visit.api.user.GET(TOKENS, listOf(visit.organization.id, pageNumber, PAGE_SIZE));
    const ok = list.data !== undefined;
    return sendSection(
      reply,
      visit,
      SECTION,
      {
        title: accessMessages(visit.locale).tokens.title,
        // A member sees why there is nothing here: only the owner or an admin manages tokens.
        notice: ok ? (notice ?? null) : refusalNotice(list, visit.locale),
        children: accessTokensContent({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          page: pageNumber,
          tokens: list.data ?? null,
          ...view,
        }),
      },
      ok ? status : list.response.status,
    );
  };

  app.get(
    '/dashboard/:organization_id/access-tokens',
    { schema: { hide: true, params: organizationParams, querystring: listQuery } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const t = accessMessages(visit.locale).tokens;
      const created = createdToken(visit.organization.id).take(request, reply);
      if (created) return page(reply, visit, { created, notice: { kind: 'status', title: t.createdNotice } });
      const pageNumber = pageNumberOf(request.query.page);
      return page(reply, visit, { page: pageNumber, notice: doneNotice(request.query.done, t.done) });
    },
  );

  app.post(
    '/dashboard/:organization_id/access-tokens',
    { schema: { hide: true, params: organizationParams, body: createForm } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const form = request.body ?? {};
      const created = await visit.api.user.POST(TOKENS, {
        params: { path: { organization_id: visit.organization.id } },
        body: {
          comment: form.comment ?? '',
          scopes: unchecked<RequestBody<typeof TOKENS, 'post'>['scopes']>(form.scopes),
          expires_in_days: daysOf(form.expires_in_days),
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
      createdToken(visit.organization.id).put(reply, created.data);
      return reply.redirect(sectionPath(visit.organization.id), 303);
    },
  );

  revokeRoutes(app, deps, page);
}

/** The token of `id` among those not revoked (the API lists them by pages; it has no read of one). */
async function findToken(visit: MemberVisit, id: string): Promise<AccessTokenRecord | undefined> {
  for (let pageNumber = 1; pageNumber <= 50; pageNumber++) {
    const list = await visit.api.user.GET(TOKENS, listOf(visit.organization.id, pageNumber, 100));
    if (!list.data) return undefined;
    const token = list.data.items.find((t) => t.id === id);
    if (token || pageNumber >= list.data.pagination.max_page) return token;
  }
  return undefined;
}

/** A token's revocation: its confirmation page, then the post that revokes it. */
function revokeRoutes(app: RouteApp, deps: RouteDeps, page: TokensPage): void {
  app.get(
    '/dashboard/:organization_id/access-tokens/:id/revoke',
    { schema: { hide: true, params: tokenParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const token = await findToken(visit, request.params.id);
      if (!token) return reply.redirect(sectionPath(visit.organization.id), 303);
      return sendSection(reply, visit, SECTION, {
        title: accessMessages(visit.locale).tokens.revokeTitle,
        children: revokeTokenConfirmation({
          locale: visit.locale,
          organizationId: visit.organization.id,
          csrf: visit.csrf,
          token,
        }),
      });
    },
  );

  app.post(
    '/dashboard/:organization_id/access-tokens/:id/revoke',
    { schema: { hide: true, params: tokenParams, body: z.object({ csrf: z.string().max(200).optional() }) } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      const revoked = await visit.api.user.DELETE(`${TOKENS}/{id}` as const, {
        params: { path: { organization_id: visit.organization.id, id: request.params.id } },
      });
      const status = revoked.response.status;
      if (status !== 204) return page(reply, visit, { notice: refusalNotice(revoked, visit.locale) }, status);
      return reply.redirect(`${sectionPath(visit.organization.id)}?done=revoked`, 303);
    },
  );
}
