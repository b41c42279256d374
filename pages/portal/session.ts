import type { FastifyReply } from 'fastify';
import { csrfTokenMatches as csrfMatches, csrfTokenOf as csrfOf } from '../csrf.ts';
import { PORTAL } from './paths.ts';

/**
 * The portal's browser session: the customer session token itself, in an HttpOnly cookie scoped to
 * /portal (so no script and no other page of the site reads it), SameSite=Lax so that a form posted
 * from another site does not carry it. It lasts as long as the token does.
 */
export const SESSION_COOKIE = 'portal_session';

export function setSessionCookie(reply: FastifyReply, token: string, expiresAt: Date): FastifyReply {
  return reply.setCookie(SESSION_COOKIE, token, {
    path: PORTAL,
    httpOnly: true,
    secure: true,
    sameSite: 'lax',
    maxAge: Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
  });
}

export function clearSessionCookie(reply: FastifyReply): FastifyReply {
  return reply.clearCookie(SESSION_COOKIE, { path: PORTAL, httpOnly: true, secure: true, sameSite: 'lax' });
}

/** The portal forms' anti-CSRF token (pages/csrf.ts). */
export const csrfTokenOf = (sessionToken: string) => csrfOf(sessionToken, 'portal-form');
export const csrfTokenMatches = (sessionToken: string, sent: unknown) => csrfMatches(sessionToken, 'portal-form', sent);
