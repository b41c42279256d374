import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorBody } from '../../use-cases/errors.ts';

/**
 * HTTP rules that hold for every route, below the routes themselves: 405 with `Allow` for a method a
 * path does not serve, 400 for a NUL character in any request string, and our error body for the
 * router's own refusals.
 */

const EXPOSED_WITH_GET = 'HEAD';

/**
 * A method the path does not serve is a 405 with an `Allow` header listing those it does (a path no
 * route serves stays a 404). Call before any route is registered: the routes are learnt as they come.
 */
export function methodNotAllowed(app: FastifyInstance): void {
  const byUrl = new Map<string, PathMethods>();

  app.addHook('onRoute', (route) => {
    const url = route.url.length > 1 ? route.url.replace(/\/$/, '') : route.url;
    let entry = byUrl.get(url);
    if (!entry) {
      entry = {
        pattern: patternOf(url),
        statics: url.split('/').filter((s) => s && !/^[:*]/.test(s)).length,
        methods: new Set(),
        pageMethods: new Set(),
      };
      byUrl.set(url, entry);
    }
    // A page's form post beside a documented operation (POST /checkout/:id beside its GET) is left out of
    // Allow, which lists what the document lists; a path of pages only lists its pages' methods.
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    const methods = hidden ? entry.pageMethods : entry.methods;
    for (const method of [route.method].flat()) methods.add(method.toUpperCase());
    if (methods.has('GET')) methods.add(EXPOSED_WITH_GET);
  });

  // onRequest: before the body is read, so a QUERY or TRACE without a Content-Type is a 405 too.
  // Callback hooks here and below: they run on every request, where a promise per hook adds up.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    const allowed = allowedMethods([...byUrl.values()], request.url.split('?')[0]!);
    if (allowed.length === 0) return done();
    reply.header('allow', allowed.join(', '));
    done(new ApiError(405, 'method_not_allowed', 'Method not allowed', `${request.method} is not served here`));
  });
}

interface PathMethods {
  pattern: RegExp;
  /** How many literal segments: `/transactions/direct` names its path more closely than `/transactions/:id`. */
  statics: number;
  /** The documented methods. */
  methods: Set<string>;
  /** The methods of pages (routes the document hides). */
  pageMethods: Set<string>;
}

/** The methods of the route that names the path most closely, as the document lists them for it. */
function allowedMethods(paths: PathMethods[], path: string): string[] {
  const matching = paths.filter((entry) => entry.pattern.test(path));
  const closest = Math.max(...matching.map((entry) => entry.statics));
  const closestEntries = matching.filter((entry) => entry.statics === closest);
  const documented = closestEntries.flatMap((entry) => [...entry.methods]);
  const methods = new Set(documented.length ? documented : closestEntries.flatMap((entry) => [...entry.pageMethods]));
  return [...methods].sort();
}

/** `/a/:id/b` → /^\/a\/[^/]+\/b\/?$/ ; a trailing `*` takes the rest of the path. */
function patternOf(url: string): RegExp {
  const body = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/**
 * PostgreSQL's text and jsonb cannot hold U+0000, and no field of this API needs it: a request with a
 * NUL in any string or object key of its body, query or path is a 400 before any route code runs.
 */
export function rejectNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    for (const [where, value] of [
      ['params', request.params],
      ['querystring', request.query],
      ['body', request.body],
    ] as const) {
      const path = nulPath(value);
      if (path !== null) {
        const detail = `${where}${path ? `.${path}` : ''}: must not contain the NUL character (U+0000)`;
        return done(new ApiError(400, 'invalid_character', 'Invalid request', detail));
      }
    }
    done();
  });
}

/** Where the first NUL is (a dotted path, '' for the value itself), or null when there is none. */
export function nulPath(value: unknown): string | null {
  // Nearly every request has none: look without building paths first.
  return containsNul(value) ? firstNulPath(value) : null;
}

function containsNul(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return true;
    } else if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
    } else if (current !== null && typeof current === 'object') {
      for (const key of Object.keys(current)) {
        if (key.includes('\u0000')) return true;
        stack.push((current as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

function firstNulPath(value: unknown): string | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, path: path ? `${path}.${i}` : String(i) }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const at = path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) return at;
        stack.push({ value: item, path: at });
      }
    }
  }
  return null;
}

/**
 * The router's refusals, before any route or hook: a path parameter longer than MAX_PARAM_LENGTH
 * (every documented parameter is shorter, so it breaks the schema: 400) or a malformed URL.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const body: ErrorBody =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? { error: 'Invalid request', detail: 'params: a path parameter is too long', code: 'validation_error' }
      : error.code === 'FST_ERR_BAD_URL'
        ? { error: 'Invalid request', detail: 'The URL is not correctly encoded', code: 'invalid_url' }
        : { error: 'Internal server error', code: 'internal_error' };
  if (body.code === 'internal_error') request.log.error({ err: error }, 'router error');
  void reply
    .status(body.code === 'internal_error' ? 500 : 400)
    .header('x-request-id', request.id)
    .send(body);
}
