import {
  allowInsecureRequests,
  ClientSecretBasic,
  discovery,
  None,
  type ClientAuth,
  type Configuration,
} from 'openid-client';
import type { OidcSettings } from '../../config/env.ts';

/**
 * The dashboard's OpenID Connect client (openid-client): the provider's metadata, discovered on the
 * first sign-in and kept; a failed discovery is tried again on the next one.
 *
 * A confidential client authenticates with client_secret_basic (the registration default of OpenID
 * Connect); a public one sends no secret and relies on PKCE alone. Plain http is allowed only for an
 * issuer on this machine's loopback (config/env.ts refuses http anywhere else): a local provider.
 */
export function oidcClient(settings: OidcSettings): () => Promise<Configuration> {
  let pending: Promise<Configuration> | null = null;
  return () => {
    pending ??= discover(settings).catch((err: unknown) => {
      pending = null;
      throw err;
    });
    return pending;
  };
}

function discover(settings: OidcSettings): Promise<Configuration> {
  const auth: ClientAuth = settings.clientSecret ? ClientSecretBasic(settings.clientSecret) : None();
  const local = settings.issuer.protocol === 'http:';
  return discovery(settings.issuer, settings.clientId, undefined, auth, {
    ...(local ? { execute: [allowInsecureRequests] } : {}),
    timeout: 10,
  });
}
