import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of a local-disk download URL: HMAC-SHA256 over the file id and the expiry (Unix
 * seconds), so neither can be changed without the secret. Time is an argument, never read here.
 */
export interface SignedDownload {
  expires: number;
  signature: string;
}

const message = (fileId: string, expires: number) => `files.download\n${fileId}\n${expires}`;

const sign = (secret: string, fileId: string, expires: number) =>
  createHmac('sha256', secret).update(message(fileId, expires)).digest('base64url');

export function signDownload(secret: string, fileId: string, expiresAt: Date): SignedDownload {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return { expires, signature: sign(secret, fileId, expires) };
}

export type DownloadCheck = 'valid' | 'invalid' | 'expired';

/** A wrong signature is `invalid` whatever the expiry says; a right one past its expiry is `expired`. */
export function checkDownload(secret: string, fileId: string, signed: SignedDownload, now: Date): DownloadCheck {
  if (!Number.isSafeInteger(signed.expires)) return 'invalid';
  const expected = Buffer.from(sign(secret, fileId, signed.expires));
  const given = Buffer.from(signed.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return signed.expires * 1000 <= now.getTime() ? 'expired' : 'valid';
}
