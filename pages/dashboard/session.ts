import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { decodeJwt } from 'jose';
import { csrfTokenMatches, csrfTokenOf } from '../csrf.ts';
import { DASHBOARD } from './paths.ts';

/**
 * The dashboard's browser session: the user's JWT (from the sign-in form, the one-click link or the
 * identity provider's code exchange) in an HttpOnly cookie scoped to /dashboard, Secure, SameSite=Lax
 * so that a form posted from another site does not carry it. Every request checks the JWT as the API
 * checks a bearer one; the session ends when the JWT expires.
 */
export const SESSION_COOKIE = 'dashboard_session';
/** The sign-in form's own anti-CSRF cookie (double submit): before sign-in there is no session to derive it from. */
export const SIGN_IN_COOKIE = 'dashboard_sign_in';

const COOKIE = { path: DASHBOARD, httpOnly: true, secure: true, sameSite: 'lax' as const };
const FORM_PURPOSE = 'dashboard-form';
const FALLBACK_SESSION_SECONDS = 8 * 60 * 60;

/** Starts the session of a verified user JWT; it lasts until the JWT's `exp` (8 hours without one). */
export function setSessionCookie(reply: FastifyReply, userJwt: string): FastifyReply {
  const exp = decodeJwt(userJwt).exp;
  const maxAge = exp ? Math.max(0, exp - Math.floor(Date.now() / 1000)) : FALLBACK_SESSION_SECONDS;
  return reply.clearCookie(SIGN_IN_COOKIE, COOKIE).setCookie(SESSION_COOKIE, userJwt, { ...COOKIE, maxAge });
}

export const clearSessionCookie = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, COOKIE);

/** The forms' anti-CSRF token of a session (pages/csrf.ts). */
export const formToken = (sessionJwt: string) => csrfTokenOf(sessionJwt, FORM_PURPOSE);
export const formTokenMatches = (sessionJwt: string, sent: unknown) => csrfTokenMatches(sessionJwt, FORM_PURPOSE, sent);

/** The sign-in form's token: a random value set as a cookie and posted back by the form. */
export function signInToken(reply: FastifyReply, existing: string | undefined): string {
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  reply.setCookie(SIGN_IN_COOKIE, token, { ...COOKIE, maxAge: 60 * 60 });
  return token;
}
