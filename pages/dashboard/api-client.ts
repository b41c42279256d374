import type { FastifyInstance } from 'fastify';
import type { Credential } from '../../api/auth/credentials.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type Query = Record<string, string | number | boolean | undefined | null>;

/** The API's answer to a page: its status and JSON body (the spec's error body when status ≥ 400). */
export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
}

export interface DashboardApi {
  /** A call as the member, with every scope of the organization's resources (products, sales, …). */
  asMember<T = unknown>(
    method: Method,
    path: string,
    options?: { query?: Query; body?: unknown },
  ): Promise<ApiAnswer<T>>;
  /** A call with the user's own JWT: the user-only routes (organizations, members, API keys, access tokens). */
  asUser<T = unknown>(method: Method, path: string, options?: { query?: Query; body?: unknown }): Promise<ApiAnswer<T>>;
}

/**
 * The dashboard is a client of the API, in process: each page calls the API's own routes through
 * `app.inject`, so every rule, validation, event and webhook is the API's, written once. The member's
 * calls carry a grant that lives for that call only (api/auth/dashboard-grants.ts).
 */
export function dashboardApi(
  app: FastifyInstance,
  userJwt: string,
  member: Extract<Credential, { kind: 'member' }> | null,
): DashboardApi {
  const send = async (bearer: string, method: Method, path: string, options: { query?: Query; body?: unknown }) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
    }
    const url = query.size ? `${path}?${query}` : path;
    const res = await app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    });
    return { status: res.statusCode, body: (res.body ? JSON.parse(res.body) : null) as never };
  };
  return {
    asMember: (method, path, options = {}) => {
      if (!member) throw new Error('A member call needs an organization');
      return app.dashboardGrants.with(member, (bearer) => send(bearer, method, path, options));
    },
    asUser: (method, path, options = {}) => send(userJwt, method, path, options),
  };
}
