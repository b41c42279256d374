import type { FastifyInstance, InjectOptions } from 'fastify';
import createClient, { type Client } from 'openapi-fetch';
import type { Credential } from '../../api/auth/credentials.ts';
import type { paths } from '../../api/openapi-types.ts';

/** The API as a typed client: paths, parameters, bodies and answers from its OpenAPI document. */
export type ApiClient = Client<paths>;

/** An answer as openapi-fetch gives it: `data` on success, the spec's error body as `error` otherwise. */
export interface ApiAnswer {
  error?: unknown;
  response: Response;
}

export interface DashboardApi {
  /** Calls as the member, with every scope of the organization's resources (products, sales, …). */
  member: ApiClient;
  /** Calls with the user's own JWT: the user-only routes (organizations, members, API keys, access tokens). */
  user: ApiClient;
}

/** Never fetched: the calls go through `app.inject`, which needs a path only. */
const BASE_URL = 'http://api.invalid';

/**
 * The dashboard is a client of the API, in process: each page calls the API's own routes through
 * `app.inject`, so every rule, validation, event and webhook is the API's, written once. The calls are
 * typed by the generated OpenAPI types (api/openapi-types.ts, `npm run client:types`) through
 * openapi-fetch, whose fetch here is `app.inject`. The member's calls carry a grant that lives for that
 * call only (api/auth/dashboard-grants.ts).
 */
export function dashboardApi(
  app: FastifyInstance,
  userJwt: string,
  member: Extract<Credential, { kind: 'member' }> | null,
): DashboardApi {
  const client = (authorized: <T>(call: (bearer: string) => Promise<T>) => Promise<T>) =>
    createClient<paths>({ baseUrl: BASE_URL, fetch: (request) => injected(app, request, authorized) });
  return {
    member: client((call) => {
      if (!member) throw new Error('A member call needs an organization');
      return app.dashboardGrants.with(member, call);
    }),
    user: client((call) => call(userJwt)),
  };
}

/** openapi-fetch's request, answered by the app in process with the caller's bearer. */
async function injected(
  app: FastifyInstance,
  request: Request,
  authorized: <T>(call: (bearer: string) => Promise<T>) => Promise<T>,
): Promise<Response> {
  const url = new URL(request.url);
  // An empty form field is no filter: the parameter is left out, not sent empty.
  const query = new URLSearchParams([...url.searchParams].filter(([, value]) => value !== ''));
  const body = request.body ? await request.text() : undefined;
  const res = await authorized((bearer) =>
    app.inject({
      method: request.method as InjectOptions['method'],
      url: query.size ? `${url.pathname}?${query}` : url.pathname,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: body } : {}),
    }),
  );
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
  }
  const empty = res.statusCode === 204 || res.statusCode === 304 || res.rawPayload.length === 0;
  return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
}

/** The JSON body an operation of the API takes, e.g. `RequestBody<'/api/v1/products/{id}', 'patch'>`. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/**
 * A form's or an address's text where the API takes one of its words (a status, an environment, scopes).
 * Not checked here: the API judges it, and its refusal (400, naming the field) is what the page shows.
 */
export const unchecked = <T extends string | readonly string[] | undefined>(value: string | string[] | undefined) =>
  value as T;
