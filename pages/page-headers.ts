import type { FastifyReply } from 'fastify';
import type { GatewaySources } from '../api/browser-card-tokenizer.ts';

/**
 * The headers of every page: a strict CSP (our own script and stylesheet only, nothing inline), no
 * caching (pages show payment state and carry secrets in their address), no referrer (the address
 * holds the checkout's client secret), and framing only by the origin the merchant named. A checkout
 * page that loads a gateway's card tokenizer adds exactly that gateway's origins (`gateway`), and a
 * page that shows a 3DS challenge the one origin of the issuer's challenge page (`challengeOrigin`).
 * Forms post only to the page's own origin and the origins it names (`formAction`); HSTS over TLS.
 */
export interface PageHeaderOptions {
  frameAncestors?: string | null;
  gateway?: GatewaySources | null;
  challengeOrigin?: string | null;
  /** Origins beside the page's own that its forms post to, or that a post of them is redirected to. */
  formAction?: (string | null)[];
  /** Origins beside the page's own its images come from: the merchant's logo and product images on S3. */
  imageSources?: string[];
}

/** A year; sent only on a page that came over TLS (directly, or through the TLS-terminating proxy). */
const HSTS = 'max-age=31536000';

export function sendPage(
  reply: FastifyReply,
  status: number,
  page: string,
  options: PageHeaderOptions = {},
): FastifyReply {
  const frameAncestors = options.frameAncestors ?? "'none'";
  const frameSources = [
    ...(options.gateway?.frameSrc ?? []),
    ...(options.challengeOrigin ? [options.challengeOrigin] : []),
  ];
  const sources = (extra: string[] = []) => ["'self'", ...extra].join(' ');
  const formAction = [...new Set((options.formAction ?? []).filter((origin) => origin !== null))];
  // request.protocol reads X-Forwarded-Proto only behind the trusted proxy (TLS_MODE=proxy).
  if (reply.request.protocol === 'https') reply.header('strict-transport-security', HSTS);
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      [
        "default-src 'none'",
        `script-src ${sources(options.gateway?.scriptSrc)}`,
        "style-src 'self'",
        `img-src ${sources(['data:', ...(options.imageSources ?? [])])}`,
        `connect-src ${sources(options.gateway?.connectSrc)}`,
        // The gateway's Secure Fields frames, and a 3DS challenge's issuer page, where the page shows one.
        ...(frameSources.length > 0 ? [`frame-src ${frameSources.join(' ')}`] : []),
        "base-uri 'none'",
        `form-action ${sources(formAction)}`,
        `frame-ancestors ${frameAncestors}`,
      ].join('; '),
    )
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('vary', 'accept-language, cookie')
    .send(page);
}
