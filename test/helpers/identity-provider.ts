import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/**
 * A local OpenID Connect provider (oidc-provider) over plain http on 127.0.0.1, as an organization's
 * identity provider would be: one confidential client registered for the API's callback, PKCE
 * required, email in the ID token, and oidc-provider's own development sign-in and consent pages
 * (any login is accepted if `addAccount` named it; any password).
 */
export interface IdentityProvider {
  issuer: string;
  jwksUri: string;
  clientId: string;
  clientSecret: string;
  /** A person the provider signs in as `login`, with this email (verified unless said otherwise; null: none). */
  addAccount(login: string, email: string | null, options?: { emailVerified?: boolean }): void;
  close(): Promise<void>;
}

export async function startIdentityProvider(redirectUri: string): Promise<IdentityProvider> {
  // Listening first: the issuer names its port.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'billing-dashboard';
  const clientSecret = 'a-test-client-secret-0123456789abcdef';
  const accounts = new Map<string, { email: string | null; emailVerified: boolean }>();
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test' }] },
    cookies: { keys: ['a-test-cookie-key-0123456789abcdef'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // Email in the ID token itself (the API reads the user's email from the JWT), as most providers do.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // Set, so that the provider does not log a notice for each default it falls back to.
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
    features: { devInteractions: { enabled: true } },
    findAccount: async (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () =>
          account.email ? { sub, email: account.email, email_verified: account.emailVerified } : { sub },
      };
    },
  });
  server.on('request', provider.callback());
  const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };

  return {
    issuer,
    jwksUri: metadata.jwks_uri,
    clientId,
    clientSecret,
    addAccount: (login, email, options = {}) =>
      accounts.set(login, { email, emailVerified: options.emailVerified ?? true }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
