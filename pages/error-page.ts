import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { dependencyUnavailable } from '../api/plugins/errors.ts';
import { ApiError, RETRY_AFTER_SECONDS } from '../use-cases/errors.ts';
import type { Messages as CheckoutMessages } from './checkout/messages.ts';
import { pickLocale, type Locale } from './locale.ts';
import { sendPage } from './page-headers.ts';

/** What a failed page says: its status, and for a 429 or 503 how long to wait (the Retry-After sent). */
export interface PageFailure {
  status: number;
  retryAfterSeconds: number;
}

/**
 * The error handler of a group of pages (the hosted checkout, the portal): a failure a browser meets on a
 * page (the rate limit's 429 above all, counted before the route runs) answers a page in the visitor's
 * language, with the status and Retry-After the API would send, never the API's JSON body. A request that
 * does not ask for HTML (a checkout link's API use, any API client) goes on to the API's own handler,
 * whose bodies the spec fixes.
 */
export function pageErrorHandler(render: (locale: Locale, failure: PageFailure) => string) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (!wantsPage(request.headers.accept)) throw err;
    const status = pageStatus(err, request);
    if ((status === 503 || status === 429) && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    }
    const retryAfterSeconds = Number(reply.getHeader('retry-after')) || RETRY_AFTER_SECONDS;
    return sendPage(
      reply,
      status,
      render(pickLocale(request.headers['accept-language']), { status, retryAfterSeconds }),
    );
  };
}

/** A failed page's title and text, from its catalogue (the checkout's words, which the portal's shares). */
export function failureWords(
  t: Pick<CheckoutMessages, 'busyTitle' | 'busyBody' | 'requestTitle' | 'requestBody' | 'errorTitle' | 'errorBody'>,
  failure: PageFailure,
): [title: string, body: string] {
  if (failure.status === 429) return [t.busyTitle, t.busyBody(failure.retryAfterSeconds)];
  if (failure.status < 500) return [t.requestTitle, t.requestBody];
  return [t.errorTitle, t.errorBody];
}

/** The status the API's handler (api/plugins/errors.ts) would answer; an unexpected error is logged as there. */
function pageStatus(err: FastifyError, request: FastifyRequest): number {
  if (err instanceof ApiError) return err.statusCode;
  if (dependencyUnavailable(err)) {
    request.log.warn({ err }, 'a dependency of a page is unavailable');
    return 503;
  }
  if (hasZodFastifySchemaValidationErrors(err)) return 400;
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return err.statusCode;
  request.log.error({ err }, 'unhandled error');
  return 500;
}

/**
 * Accept names HTML, as a browser's navigation and form post always do. Anything else (an API client,
 * curl's `*\/*`, no Accept at all) gets the API's JSON error body, which the OpenAPI document describes.
 */
function wantsPage(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/html\b/i.test(accept);
}
