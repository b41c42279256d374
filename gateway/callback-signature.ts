import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Gateway callbacks are signed like webhooks: `x-gateway-signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256(secret, "<t>.<raw body>")>`. The timestamp inside the signed text stops replays of an
 * old notification beyond the tolerance.
 */
export const CALLBACK_SIGNATURE_HEADER = 'x-gateway-signature';

const hmac = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

export function signCallback(secret: string, body: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${hmac(secret, t, body)}`;
}

/** True when `header` signs exactly `body` with `secret`, no more than `toleranceSeconds` away from `now`. */
export function verifyCallbackSignature(
  secret: string,
  header: string | undefined | null,
  body: string,
  now: Date,
  toleranceSeconds = 300,
): boolean {
  if (!header) return false;
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    parts.set(key, [...(parts.get(key) ?? []), item.slice(at + 1).trim()]);
  }
  const ts = parts.get('t')?.[0];
  if (!ts || !/^\d+$/.test(ts)) return false;
  const t = Number(ts);
  if (Math.abs(Math.floor(now.getTime() / 1000) - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, t, body), 'hex');
  // Several v1 values are accepted, so a secret can be rotated without a gap.
  return (parts.get('v1') ?? []).some((v) => {
    if (!/^[0-9a-f]{64}$/.test(v)) return false;
    return timingSafeEqual(Buffer.from(v, 'hex'), expected);
  });
}
