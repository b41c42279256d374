import { fastifyCookie } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import { byPathSecret, clientSecretCount } from '../api/plugins/rate-limit.ts';

/**
 * Whom the rate limit counts on the hosted checkout's pages: the buyer's checkout, not the address
 * (buyers on one mobile carrier share one). A checkout's page names it in its path; a link's page in the
 * cookie that keeps the browser's checkout of the link. A first visit of a link has neither, and is
 * counted by address (once or twice per buyer: the link's page and its "go on").
 */
export const checkoutPageVisitor = byPathSecret('page');

/** The cookie that keeps this browser's open checkout of a link (its value: the checkout's client secret). */
export const linkCookie = (linkId: string) => `checkout_link_${linkId.replaceAll('-', '')}`;

export function linkPageVisitor(request: FastifyRequest): string | null {
  const linkId = (request.params as { checkout_link_id?: string } | undefined)?.checkout_link_id;
  const header = request.headers.cookie;
  if (!linkId || !header) return null;
  // The limiter runs before the pages' cookie parser (a root hook), so the header is read here.
  return clientSecretCount('page', fastifyCookie.parse(header)[linkCookie(linkId)]);
}
