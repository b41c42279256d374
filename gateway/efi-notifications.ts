import { createHash, timingSafeEqual } from 'node:crypto';
import { callbacksOfBcbWebhook } from './bcb-notices.ts';
import type { GatewayCallback } from './port.ts';

/**
 * Efí's notices (webhooks). Efí posts to the URL registered for the pix key (PUT /v2/webhook/{chave}),
 * for recs (PUT /v2/webhookrec) and for cobrs (PUT /v2/webhookcobr), appending `/pix`, `/rec` or `/cobr`
 * to its path, with the BCB's bodies: `{ pix: [...] }`, `{ recs: [...] }`, `{ cobsr: [...] }`.
 *
 * Efí authenticates itself by mTLS, which a server behind a proxy that ends TLS cannot check. For
 * that case Efí documents registering the webhook with `x-skip-mtls-checking: true` and a secret of
 * the receiver's choosing in the URL's query (`?hmac=<secret>`), which Efí then sends on every notice
 * (Efí, "Webhooks", "Servidores sem mTLS"); `ignorar=` at the end of the query takes the appended
 * `/pix` into the query instead of the path. The secret is compared in constant time, and a notice
 * only names what changed: every object it names is read again from Efí (never from the body).
 *
 * Efí's charges API (boletos) posts `notification=<token>` to the charge's notification_url instead;
 * the token is read back with GET /v1/notification/{token} (EfiGateway.chargeNoticeCallbacks).
 */

export class InvalidEfiNoticeError extends Error {}

/** The URL to register with Efí: ours, the secret as `hmac`, and `ignorar=` last (it swallows `/pix`). */
export function efiNoticeUrl(base: string, secret: string, kind?: 'charge'): string {
  const url = new URL(base);
  url.searchParams.set('hmac', secret);
  if (kind) url.searchParams.set('kind', kind);
  return `${url.toString()}&ignorar=`;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Throws unless the notice's `hmac` query parameter is the configured secret (compared in constant time). */
export function verifyEfiNotice(hmac: unknown, secret: string): void {
  const given = Array.isArray(hmac) ? hmac[0] : hmac;
  if (typeof given !== 'string' || given.length === 0) throw new InvalidEfiNoticeError('An Efí notice without hmac');
  // Digests of equal length, so that neither the comparison nor its length leaks the secret.
  if (!timingSafeEqual(digest(given), digest(secret)))
    throw new InvalidEfiNoticeError('An Efí notice with a wrong hmac');
}

interface NoticeBody {
  pix?: { txid?: unknown; endToEndId?: unknown; horario?: unknown }[];
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/**
 * The callbacks a verified notice stands for, one per object it names: a paid cob's pix
 * (`transaction.updated`, its txid our transaction id), a rec (`mandate.updated`), a cobr
 * (`mandate_charge.updated`). Their status is the notice's word, for logs only: the receiver reads each
 * object back. A pix without a txid (paid to the key, not to one of our charges) names nothing of ours.
 * Efí's test notice on registration (`{ "evento": "teste_webhook" }`) stands for none.
 */
export function callbacksOfEfiNotice(body: unknown, receivedAt: Date): GatewayCallback[] {
  const notice = (typeof body === 'object' && body !== null ? body : {}) as NoticeBody;
  const at = receivedAt.toISOString();
  const callbacks: GatewayCallback[] = [];
  for (const pix of Array.isArray(notice.pix) ? notice.pix : []) {
    const txid = text(pix.txid);
    const e2e = text(pix.endToEndId);
    if (!txid) continue;
    const occurredAt = text(pix.horario) ?? at;
    callbacks.push({
      id: `efi:pix:${e2e ?? txid}:${occurredAt}`,
      type: 'transaction.updated',
      transactionId: txid,
      status: 'paid',
      occurredAt,
    });
  }
  callbacks.push(...callbacksOfBcbWebhook(body, receivedAt, 'efi'));
  return callbacks;
}

/** The token of a charges-API notice (`notification=<token>`, form-encoded or JSON); null when none. */
export function chargeNoticeToken(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  return text((body as { notification?: unknown }).notification);
}

/** One event of GET /v1/notification/{token}: a charge's status changed. */
export interface EfiChargeEvent {
  id?: number;
  type?: string;
  custom_id?: string | null;
  status?: { current?: string; previous?: string | null };
  identifiers?: { charge_id?: number };
  created_at?: string;
}

/** The charges a charges-API notice's events name, newest event per charge, as callbacks. */
export function callbacksOfChargeEvents(events: EfiChargeEvent[], receivedAt: Date): GatewayCallback[] {
  const byCharge = new Map<string, GatewayCallback>();
  for (const event of events) {
    const chargeId = event.identifiers?.charge_id;
    if (chargeId === undefined || event.type !== 'charge') continue;
    const status = event.status?.current ?? 'unknown';
    byCharge.set(String(chargeId), {
      id: `efi:charge:${chargeId}:${event.id ?? status}`,
      type: 'transaction.updated',
      transactionId: String(chargeId),
      status,
      occurredAt: receivedAt.toISOString(),
    });
  }
  return [...byCharge.values()];
}
