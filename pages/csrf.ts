import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A form's anti-CSRF token: derived from the session's own secret (the cookie's value), so it needs
 * no storage, differs per session and per page group, and cannot be made by a page that does not
 * know the cookie. Every form of the portal and the dashboard posts it.
 */
export const csrfTokenOf = (sessionSecret: string, purpose: string) =>
  createHmac('sha256', sessionSecret).update(purpose).digest('base64url');

export function csrfTokenMatches(sessionSecret: string, purpose: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const expected = Buffer.from(csrfTokenOf(sessionSecret, purpose));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
