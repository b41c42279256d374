import { hash, randomBytes } from 'node:crypto';

/** 32 random bytes in base64url are exactly the 43 characters the spec shows after each prefix. */
const SECRET_BODY = /^[A-Za-z0-9_-]{43}$/;

export const TOKEN_PREFIX = {
  apiKeyLive: 'svc_live_',
  apiKeyTest: 'svc_test_',
  oat: 'svc_oat_',
  customerSession: 'svc_cst_',
} as const;

export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Where a request keeps the hash of the secret it presents (a decorated field of Fastify's request). */
export interface PresentingRequest {
  presentedSecret: { secret: string; hash: string } | null;
}

/**
 * The hash of the secret a request presents, computed once however many of its hooks need it (the
 * rate limiter's key, then the credential lookup).
 */
export function presentedSecretHash(request: PresentingRequest, secret: string): string {
  const known = request.presentedSecret;
  if (known?.secret === secret) return known.hash;
  const hashed = hashSecret(secret);
  request.presentedSecret = { secret, hash: hashed };
  return hashed;
}

/** True when the token is the prefix followed by exactly 43 base64url characters. */
export function isWellFormed(token: string, prefix: string): boolean {
  return token.startsWith(prefix) && SECRET_BODY.test(token.slice(prefix.length));
}

/** What lists show instead of the secret: the prefix, a few characters, and the last four. */
export function maskSecret(secret: string, prefix: string): string {
  const body = secret.slice(prefix.length);
  return `${prefix}${body.slice(0, 4)}…${body.slice(-4)}`;
}
