import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply } from 'fastify';
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

/**
 * The forms' anti-CSRF token: derived from the session's secret, so it needs no storage, differs per
 * session, and cannot be made by a page that does not know the cookie's value.
 */
export const csrfTokenOf = (sessionToken: string) =>
  createHmac('sha256', sessionToken).update('portal-form').digest('base64url');

export function csrfTokenMatches(sessionToken: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
