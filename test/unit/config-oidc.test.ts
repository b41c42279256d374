import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../config/env.ts';

/** The dashboard's sign-in through an OpenID Connect provider: its settings, checked together at start. */
const provider = {
  JWT_JWKS_URL: 'https://id.acme.example/jwks',
  OIDC_ISSUER_URL: 'https://id.acme.example',
  OIDC_CLIENT_ID: 'billing-dashboard',
};
const invalid = (line: string) => `Invalid environment configuration:\n  ${line}`;

describe('configuration: the identity provider of the dashboard', () => {
  it('is off without OIDC_ISSUER_URL', () => {
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(32) }).oidc).toBeNull();
  });

  it('registers the callback under PUBLIC_BASE_URL and asks for openid, email and profile by default', () => {
    const config = loadConfig({ ...provider, PUBLIC_BASE_URL: 'https://billing.acme.example' });
    expect(config.oidc).toEqual({
      issuer: new URL('https://id.acme.example'),
      clientId: 'billing-dashboard',
      clientSecret: null,
      scopes: 'openid email profile',
      redirectUri: 'https://billing.acme.example/dashboard/sign-in/oidc/callback',
    });
    const confidential = loadConfig({ ...provider, OIDC_CLIENT_SECRET: 's3cret', OIDC_SCOPES: 'openid email' });
    expect(confidential.oidc).toMatchObject({ clientSecret: 's3cret', scopes: 'openid email' });
  });

  it('takes several audiences in JWT_AUDIENCE, the API’s and the client id', () => {
    const config = loadConfig({ ...provider, JWT_AUDIENCE: 'billing-api, billing-dashboard' });
    expect(config.JWT_AUDIENCE).toEqual(['billing-api', 'billing-dashboard']);
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(32), JWT_AUDIENCE: ' , ' }).JWT_AUDIENCE).toBeUndefined();
  });

  it('allows plain http only for a provider on this machine', () => {
    for (const issuer of ['http://127.0.0.1:4000', 'http://localhost:4000/realm']) {
      expect(loadConfig({ ...provider, OIDC_ISSUER_URL: issuer, JWT_ISSUER: issuer }).oidc?.issuer.href).toMatch(
        /^http:/,
      );
    }
    expect(() => loadConfig({ ...provider, OIDC_ISSUER_URL: 'http://id.acme.example' })).toThrow(
      invalid('OIDC_ISSUER_URL: must be an https:// URL (http:// only on localhost or 127.0.0.1)'),
    );
  });

  it.each([
    [{ OIDC_CLIENT_ID: undefined }, 'OIDC_CLIENT_ID: required when OIDC_ISSUER_URL is set'],
    [{ JWT_JWKS_URL: undefined, JWT_SECRET: 'x'.repeat(32) }, 'JWT_JWKS_URL: required when OIDC_ISSUER_URL is set'],
    [{ JWT_AUDIENCE: 'billing-api' }, 'JWT_AUDIENCE: must list OIDC_CLIENT_ID'],
    [{ JWT_ISSUER: 'https://other.example' }, 'JWT_ISSUER: must be OIDC_ISSUER_URL'],
    [{ OIDC_SCOPES: 'email profile' }, 'OIDC_SCOPES: must include openid'],
    [{ OIDC_ISSUER_URL: 'ftp://id.acme.example' }, 'OIDC_ISSUER_URL: must be an https:// URL'],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => loadConfig({ ...provider, ...env })).toThrow(invalid(message));
  });

  it('leaves the worker alone: it signs no one in', () => {
    expect(loadConfig({ ...provider, OIDC_CLIENT_ID: undefined }, 'worker').oidc).toBeNull();
  });
});
