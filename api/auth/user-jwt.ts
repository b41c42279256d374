import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../../config/env.ts';

export interface VerifiedUser {
  subject: string;
  email: string;
}

export type UserJwtVerifier = (token: string) => Promise<VerifiedUser | null>;

/** Identity-provider JWTs: a JWKS URL in production, or an HS256 shared secret for local use. */
export function userJwtVerifier(config: Config): UserJwtVerifier {
  const key: Uint8Array | JWTVerifyGetKey = config.JWT_JWKS_URL
    ? createRemoteJWKSet(new URL(config.JWT_JWKS_URL))
    : new TextEncoder().encode(config.JWT_SECRET);
  const options = {
    ...(config.JWT_ISSUER ? { issuer: config.JWT_ISSUER } : {}),
    ...(config.JWT_AUDIENCE ? { audience: config.JWT_AUDIENCE } : {}),
  };
  return async (token) => {
    try {
      const { payload } =
        key instanceof Uint8Array ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options);
      if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') return null;
      return { subject: payload.sub, email: payload.email.toLowerCase() };
    } catch {
      return null;
    }
  };
}
