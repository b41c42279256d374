import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AuthorizationResponseError,
  authorizationCodeGrant,
  buildAuthorizationUrl,
  calculatePKCECodeChallenge,
  ClientError,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
  ResponseBodyError,
  WWWAuthenticateChallengeError,
  type Configuration,
} from 'openid-client';
import { z } from 'zod';
import type { OidcSettings } from '../../../config/env.ts';
import { ApiError } from '../../../use-cases/errors.ts';
import { oidcClient } from '../../../api/auth/oidc-client.ts';
import type { Notice } from '../layout.ts';
import { dashboardPaths } from '../paths.ts';
import { setSessionCookie } from '../session.ts';
import type { RouteApp } from '../../../api/route-deps.ts';
import { returnPath, sendSignInPage } from './sign-in.ts';

const oidcPaths = {
  start: `${dashboardPaths.signIn}/oidc`,
  callback: `${dashboardPaths.signIn}/oidc/callback`,
};

/**
 * The sign-in under way (PKCE verifier, state, nonce, where to go after): in a cookie of its own for
 * the ten minutes a sign-in at the provider may take, sent back only to the sign-in's paths. SameSite=Lax
 * lets the provider's redirect (a top-level GET) carry it; HttpOnly keeps the verifier from scripts.
 */
export const OIDC_FLOW_COOKIE = 'dashboard_oidc';
const FLOW_COOKIE = {
  path: dashboardPaths.signIn,
  httpOnly: true,
  secure: true,
  sameSite: 'lax' as const,
  maxAge: 10 * 60,
};
const flowSchema = z.object({
  verifier: z.string().min(43).max(128),
  state: z.string().min(1).max(200),
  nonce: z.string().min(1).max(200),
  next: z.string().max(500),
});
type Flow = z.infer<typeof flowSchema>;

const encodeFlow = (flow: Flow) => Buffer.from(JSON.stringify(flow)).toString('base64url');
function decodeFlow(cookie: string | undefined): Flow | null {
  if (!cookie) return null;
  try {
    const parsed = flowSchema.safeParse(JSON.parse(Buffer.from(cookie, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const NOTICES = {
  unreachable: {
    kind: 'alert',
    title: 'The identity provider cannot be reached right now.',
    detail: 'Try again in a moment.',
  },
  notStartedHere: {
    kind: 'alert',
    title: 'That sign-in was not started in this browser, or took too long.',
    detail: 'Start again with the button below.',
  },
  refusedByProvider: {
    kind: 'alert',
    title: 'The identity provider did not sign you in.',
    detail: 'Start again with the button below.',
  },
  unverifiedEmail: {
    kind: 'alert',
    title: 'Your identity provider has not verified your email address.',
    detail: 'Verify it there, then sign in again.',
  },
  refusedHere: {
    kind: 'alert',
    title: "Your identity provider's sign-in was not accepted here.",
    detail: 'Ask whoever runs this billing service to check its identity provider settings.',
  },
} satisfies Record<string, Notice>;

/**
 * The dashboard's sign-in through the identity provider (OpenID Connect, authorization code with
 * PKCE; every protocol step is openid-client's). The session then holds the provider's ID token,
 * verified by the API as any user JWT (docs/decisions/0053-dashboard-oidc-id-token.md): so the dashboard's user is exactly whom
 * the API would accept.
 */
export function oidcRoutes(app: RouteApp, settings: OidcSettings): void {
  const client = oidcClient(settings);
  const page = (request: FastifyRequest, reply: FastifyReply, status: number, next: string, notice: Notice) =>
    sendSignInPage(request, reply, { status, next, notice, identityProvider: true });

  /** The provider's configuration, or null after the sign-in page told the user it cannot be reached. */
  const provider = async (request: FastifyRequest): Promise<Configuration | null> => {
    try {
      return await client();
    } catch (err) {
      request.log.error({ err, issuer: settings.issuer.href }, 'OpenID Connect discovery failed');
      return null;
    }
  };

  app.get(
    oidcPaths.start,
    { schema: { hide: true, querystring: z.object({ next: z.string().max(500).optional() }) } },
    async (request, reply) => {
      const next = returnPath(request.query.next);
      const config = await provider(request);
      if (!config) return page(request, reply, 502, next, NOTICES.unreachable);
      const flow: Flow = { verifier: randomPKCECodeVerifier(), state: randomState(), nonce: randomNonce(), next };
      const url = buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes,
        code_challenge: await calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      });
      return reply
        .setCookie(OIDC_FLOW_COOKIE, encodeFlow(flow), FLOW_COOKIE)
        .header('cache-control', 'no-store')
        .redirect(url.href, 303);
    },
  );

  app.get(oidcPaths.callback, { schema: { hide: true } }, async (request, reply) => {
    const flow = decodeFlow(request.cookies[OIDC_FLOW_COOKIE]);
    // One use: a code (or an attacker's) is never exchanged twice with the same verifier.
    reply.clearCookie(OIDC_FLOW_COOKIE, { path: FLOW_COOKIE.path });
    if (!flow) return page(request, reply, 400, dashboardPaths.home, NOTICES.notStartedHere);
    const config = await provider(request);
    if (!config) return page(request, reply, 502, flow.next, NOTICES.unreachable);

    const exchanged = await idTokenOf(config, settings, flow, request.url);
    if ('failure' in exchanged) {
      request.log.warn({ err: exchanged.err }, 'OpenID Connect sign-in failed');
      return page(request, reply, exchanged.failure.status, flow.next, exchanged.failure.notice);
    }
    const { idToken } = exchanged;

    try {
      await app.userSession(idToken);
    } catch (err) {
      if (!(err instanceof ApiError && err.statusCode === 401)) throw err;
      request.log.warn(
        { issuer: settings.issuer.href },
        "The identity provider's ID token was refused as a user JWT: check JWT_JWKS_URL, JWT_ISSUER and JWT_AUDIENCE",
      );
      return page(request, reply, 401, flow.next, NOTICES.refusedHere);
    }
    // Checked again: the cookie came back from the browser.
    const next = returnPath(flow.next);
    return setSessionCookie(reply, idToken).header('referrer-policy', 'no-referrer').redirect(next, 303);
  });
}

type Failure = { status: number; notice: Notice };

/**
 * The ID token of the provider's redirect to `requestUrl`, for the code exchanged with the sign-in's
 * verifier; openid-client checks the state, the nonce and the ID token. Or why there is none.
 */
async function idTokenOf(
  config: Configuration,
  settings: OidcSettings,
  flow: Flow,
  requestUrl: string,
): Promise<{ idToken: string } | { failure: Failure; err?: unknown }> {
  // The address the provider redirected to, as registered (not as this request's Host names it).
  const currentUrl = new URL(settings.redirectUri);
  currentUrl.search = requestUrl.includes('?') ? requestUrl.slice(requestUrl.indexOf('?')) : '';
  try {
    const tokens = await authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    // Invitations are claimed by email: only an address the provider vouches for may claim one.
    if (tokens.claims()?.email_verified === false) {
      return { failure: { status: 401, notice: NOTICES.unverifiedEmail } };
    }
    return { idToken: tokens.id_token! };
  } catch (err) {
    return { failure: failureOf(err), err };
  }
}

/**
 * What the user is told of a failed code exchange (400s): the provider's refusal (an error in the
 * redirect or at the token endpoint), or an answer that fails openid-client's checks (state, nonce,
 * ID token). A provider that does not answer, or not as OAuth does, is a 502.
 */
function failureOf(err: unknown): Failure {
  if (
    err instanceof AuthorizationResponseError ||
    err instanceof ResponseBodyError ||
    err instanceof WWWAuthenticateChallengeError
  ) {
    return { status: 400, notice: NOTICES.refusedByProvider };
  }
  const malformed = err instanceof ClientError && /RESPONSE_IS_NOT_(CONFORM|JSON)$/.test(err.code ?? '');
  if (err instanceof ClientError && !malformed) return { status: 400, notice: NOTICES.notStartedHere };
  return { status: 502, notice: NOTICES.unreachable };
}
