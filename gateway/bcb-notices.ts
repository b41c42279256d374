import type { GatewayCallback } from './port.ts';

/**
 * The BCB's Pix Automático webhooks (bacen/pix-api openapi.yaml 2.9, callbacks of PUT /webhookrec and
 * PUT /webhookcobr): a PSP posts `{ recs: [RecNotification] }` to `<webhookUrl>/rec` and
 * `{ cobsr: [CobRNotification] }` to `<webhookUrl>/cobr`. Each names what changed, and only that is
 * read of it: a rec's `idRec` (`mandate.updated`), a cobr's `txid` and `idRec`
 * (`mandate_charge.updated`). Their status is the notice's word, for logs only: the receiver reads each
 * object back through the gateway (never from the body), so a repeated or reordered notice ends in the
 * same state. Efí posts the same bodies (efi-notifications.ts); so does the simulator.
 */
export interface BcbWebhookBody {
  recs?: { idRec?: unknown; status?: unknown; atualizacao?: { data?: unknown }[] }[];
  cobsr?: { idRec?: unknown; txid?: unknown; status?: unknown; atualizacao?: { data?: unknown }[] }[];
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);
const lastUpdate = (updates: { data?: unknown }[] | undefined, fallback: string) =>
  text(updates?.[updates.length - 1]?.data) ?? fallback;

/** The callbacks of a webhook's recs and cobsr; their ids start with `source` (e.g. `efi`, `bcb`). */
export function callbacksOfBcbWebhook(body: unknown, receivedAt: Date, source: string): GatewayCallback[] {
  const notice = (typeof body === 'object' && body !== null ? body : {}) as BcbWebhookBody;
  const at = receivedAt.toISOString();
  const callbacks: GatewayCallback[] = [];
  for (const rec of Array.isArray(notice.recs) ? notice.recs : []) {
    const idRec = text(rec.idRec);
    if (!idRec) continue;
    const status = text(rec.status) ?? 'unknown';
    const occurredAt = lastUpdate(rec.atualizacao, at);
    callbacks.push({
      id: `${source}:rec:${idRec}:${status}:${occurredAt}`,
      type: 'mandate.updated',
      mandateId: idRec,
      status,
      occurredAt,
    });
  }
  for (const cobr of Array.isArray(notice.cobsr) ? notice.cobsr : []) {
    const txid = text(cobr.txid);
    if (!txid) continue;
    const status = text(cobr.status) ?? 'unknown';
    const occurredAt = lastUpdate(cobr.atualizacao, at);
    callbacks.push({
      id: `${source}:cobr:${txid}:${status}:${occurredAt}`,
      type: 'mandate_charge.updated',
      mandateChargeId: txid,
      ...(text(cobr.idRec) ? { mandateId: text(cobr.idRec)! } : {}),
      status,
      occurredAt,
    });
  }
  return callbacks;
}
