import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Credential } from '../../../api/auth/credentials.ts';
import { dashboardMembership } from '../../../use-cases/dashboard-membership.ts';
import { ApiError } from '../../../use-cases/errors.ts';
import { isUuid } from '../../../use-cases/schemas/common.ts';
import { pickLocale, type Locale } from '../../locale.ts';
import { sendPage } from '../../page-headers.ts';
import { dashboardApi, type ApiAnswer, type DashboardApi } from '../api-client.ts';
import { renderDashboardPage, type DashboardFrame, type Notice, type Section } from '../layout.ts';
import { refusalWords } from '../messages-refusals.ts';
import { settingsMessages } from '../messages-settings.ts';
import { dashboardPaths } from '../paths.ts';
import { clearSessionCookie, formToken, formTokenMatches, SESSION_COOKIE } from '../session.ts';
import type { RouteApp, RouteDeps } from '../../../api/route-deps.ts';

/** A signed-in request: who, in which words, the forms' token, and the API as this user. */
export interface UserVisit {
  locale: Locale;
  user: Extract<Credential, { kind: 'user' }>;
  csrf: string;
  api: DashboardApi;
}

/** A signed-in member's request about one of its organizations. */
export interface MemberVisit extends UserVisit {
  organization: { id: string; name: string; slug: string };
  role: 'owner' | 'admin' | 'member';
}

/** The session of the request's cookie, checked as the API checks a user JWT; null without one. */
export async function userVisit(app: RouteApp, request: FastifyRequest): Promise<UserVisit | null> {
  const locale = pickLocale(request.headers['accept-language']);
  const jwt = request.cookies[SESSION_COOKIE];
  if (!jwt) return null;
  try {
    const user = await app.userSession(jwt);
    request.identifyActor?.({ type: 'user', id: user.userId });
    return { locale, user, csrf: formToken(jwt), api: dashboardApi(app, jwt, null) };
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 401) return null;
    throw err;
  }
}

/** The member's visit of organization `organizationId`; null when the user is not one of its members. */
export async function memberVisit(
  app: RouteApp,
  deps: RouteDeps,
  visit: UserVisit,
  jwt: string,
  organizationId: string,
): Promise<MemberVisit | null> {
  if (!isUuid(organizationId)) return null;
  const membership = await dashboardMembership(deps.orm.em.fork(), visit.user.userId, organizationId);
  if (!membership) return null;
  const { role, organization } = membership;
  const member = { kind: 'member' as const, userId: visit.user.userId, organizationId, role };
  return { ...visit, api: dashboardApi(app, jwt, member), organization, role };
}

/** Without a session: to the sign-in page, which brings the user back here afterwards. */
export function toSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const back = request.method === 'GET' ? request.url : dashboardPaths.home;
  return clearSessionCookie(reply).redirect(`${dashboardPaths.signIn}?next=${encodeURIComponent(back)}`, 303);
}

/**
 * What a page of an organization's section needs: the member's visit, or the reply already sent
 * (sign-in for no session, 404 for an organization that is not the user's, 403 for a form without
 * the session's anti-CSRF token).
 */
export async function sectionVisit(
  app: RouteApp,
  deps: RouteDeps,
  request: FastifyRequest<{ Params: { organization_id: string }; Body?: unknown }>,
  reply: FastifyReply,
): Promise<MemberVisit | null> {
  const visit = await userVisit(app, request);
  if (!visit) {
    await toSignIn(request, reply);
    return null;
  }
  const jwt = request.cookies[SESSION_COOKIE]!;
  if (request.method === 'POST' && !formTokenMatches(jwt, (request.body as { csrf?: unknown } | undefined)?.csrf)) {
    await sendPage(reply, 403, refusedPage(visit));
    return null;
  }
  const member = await memberVisit(app, deps, visit, jwt, request.params.organization_id);
  if (!member) {
    await sendPage(reply, 404, notFoundPage(visit));
    return null;
  }
  return member;
}

/** A section's page in the frame of its organization. */
export function sendSection(
  reply: FastifyReply,
  visit: MemberVisit,
  section: Section,
  page: Omit<DashboardFrame, 'locale' | 'user' | 'organization' | 'section' | 'csrf'>,
  status = 200,
): FastifyReply {
  return sendPage(
    reply,
    status,
    renderDashboardPage({
      ...page,
      locale: visit.locale,
      user: visit.user,
      organization: visit.organization,
      section,
      csrf: visit.csrf,
    }),
  );
}

/** The API's refusal as the page's alert, in the page's language (messages-refusals.ts). */
export function refusalNotice(answer: ApiAnswer, locale: Locale): Notice {
  const body = typeof answer.error === 'object' && answer.error !== null ? answer.error : {};
  return { kind: 'alert', ...refusalWords(locale, answer.response.status, body) };
}

/** An answer the page cannot do without (a list it shows): an error page with the API's words otherwise. */
export function expectOk<T>(answer: ApiAnswer & { data?: T }): T {
  const status = answer.response.status;
  if (status >= 400 || answer.data === undefined) {
    throw new ApiError(status, 'dashboard_read_failed', refusalNotice(answer, 'en').title);
  }
  return answer.data;
}

/** `?done=` after a change (post, redirect, get): the status line it shows. */
export const doneNotice = (done: string | undefined, messages: Record<string, string>): Notice | null =>
  done && messages[done] ? { kind: 'status', title: messages[done] } : null;

function refusedPage(visit: UserVisit): string {
  const t = settingsMessages(visit.locale).visit;
  return renderDashboardPage({
    locale: visit.locale,
    user: visit.user,
    csrf: visit.csrf,
    title: t.refusedTitle,
    notice: { kind: 'alert', title: t.refused, detail: t.nothingChanged },
    children: null,
  });
}

function notFoundPage(visit: UserVisit): string {
  const t = settingsMessages(visit.locale).visit;
  return renderDashboardPage({
    locale: visit.locale,
    user: visit.user,
    csrf: visit.csrf,
    title: t.notFoundTitle,
    notice: { kind: 'alert', title: t.noSuchOrganization },
    children: null,
  });
}
