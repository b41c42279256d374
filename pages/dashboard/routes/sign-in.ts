import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../use-cases/errors.ts';
import { pickLocale } from '../../locale.ts';
import { sendPage } from '../../page-headers.ts';
import type { Notice } from '../layout.ts';
import { renderSignInPage, tokenRefused } from '../sign-in.ts';
import { dashboardPaths } from '../paths.ts';
import {
  clearSessionCookie,
  formTokenMatches,
  SESSION_COOKIE,
  setSessionCookie,
  SIGN_IN_COOKIE,
  signInToken,
} from '../session.ts';
import type { RouteApp } from '../../../api/route-deps.ts';

const signInQuery = z.object({ token: z.string().max(8_000).optional(), next: z.string().max(500).optional() });
const signInForm = z.object({
  token: z.string().max(8_000).optional(),
  next: z.string().max(500).optional(),
  csrf: z.string().max(200).optional(),
});
const csrfForm = z.object({ csrf: z.string().max(200).optional() });

/** Only a dashboard page is a place to return to after sign-in (never another site). */
export const returnPath = (next: string | undefined) =>
  next && /^\/dashboard(\/[A-Za-z0-9/_-]*)?(\?[A-Za-z0-9=&_%.-]*)?$/.test(next) ? next : dashboardPaths.home;

/** The sign-in page, with the alert of what went wrong when something did. */
export function sendSignInPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: { status: number; next: string | undefined; notice: Notice | null; identityProvider: boolean },
): FastifyReply {
  return sendPage(
    reply,
    page.status,
    renderSignInPage({
      locale: pickLocale(request.headers['accept-language']),
      csrf: signInToken(reply, request.cookies[SIGN_IN_COOKIE]),
      next: returnPath(page.next),
      notice: page.notice,
      identityProvider: page.identityProvider,
    }),
  );
}

/**
 * Signing in and out. Locally a user JWT (the one `npm start` prints, or `npm run dev:token`) goes into
 * the form, or arrives in the one-click link `/dashboard/sign-in?token=…`, whose token leaves the
 * address bar at once; in production the identity provider's sign-in ends here too (oidc.ts).
 */
export function signInRoutes(app: RouteApp, options: { identityProvider: boolean }): void {
  const form = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    next: string | undefined,
    refused: boolean,
  ) =>
    sendSignInPage(request, reply, {
      status,
      next,
      notice: refused ? tokenRefused(pickLocale(request.headers['accept-language'])) : null,
      identityProvider: options.identityProvider,
    });

  /** The session of a JWT the API accepts, then back where the user was going; the form again otherwise. */
  const signIn = async (request: FastifyRequest, reply: FastifyReply, token: string, next: string | undefined) => {
    try {
      await app.userSession(token);
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 401) return form(request, reply, 401, next, true);
      throw err;
    }
    return setSessionCookie(reply, token).header('referrer-policy', 'no-referrer').redirect(returnPath(next), 303);
  };

  app.get(dashboardPaths.signIn, { schema: { hide: true, querystring: signInQuery } }, async (request, reply) => {
    const { token, next } = request.query;
    if (token) return signIn(request, reply, token, next);
    return form(request, reply, 200, next, false);
  });

  app.post(dashboardPaths.signIn, { schema: { hide: true, body: signInForm } }, async (request, reply) => {
    const { token, next, csrf } = request.body ?? {};
    const expected = request.cookies[SIGN_IN_COOKIE];
    if (!expected || csrf !== expected) return form(request, reply, 403, next, false);
    return signIn(request, reply, (token ?? '').trim(), next);
  });

  app.post(dashboardPaths.signOut, { schema: { hide: true, body: csrfForm } }, async (request, reply) => {
    const jwt = request.cookies[SESSION_COOKIE];
    // A sign-out from another site is refused: it would be a nuisance, not a leak, but the rule is one.
    if (jwt && !formTokenMatches(jwt, request.body?.csrf)) return form(request, reply, 403, undefined, false);
    return clearSessionCookie(reply).redirect(dashboardPaths.signIn, 303);
  });
}
