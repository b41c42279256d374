import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { CALLBACK_SIGNATURE_HEADER, signCallback } from '../../../gateway/callback-signature.ts';
import type { GatewayCallback, GatewayInvoice, GatewayTransaction } from '../../../gateway/port.ts';
import { newId } from './simulator-rows.ts';

/** The simulator's callbacks: the notices of its state changes, posted signed to our API. */

export interface SimulatorCallbacks {
  /** Our callback endpoint; no callbacks are sent without it. */
  callbackUrl?: string;
  /** Signs every callback (see callback-signature.ts). */
  callbackSecret?: string;
}

/** Pauses between callback deliveries of one notification; a notification is tried once more per pause. */
const CALLBACK_RETRY_DELAYS_MS = [250, 1000, 3000];

export function transactionNotice(t: GatewayTransaction, occurredAt: Date): GatewayCallback {
  return {
    id: newId('cb'),
    type: 'transaction.updated',
    transactionId: t.id,
    status: t.status,
    occurredAt: occurredAt.toISOString(),
  };
}

export function invoiceNotice(i: GatewayInvoice, occurredAt: Date): GatewayCallback {
  return {
    id: newId('cb'),
    type: 'invoice.updated',
    invoiceId: i.id,
    status: i.status,
    occurredAt: occurredAt.toISOString(),
  };
}

/** Posts notices to `callbacks` (read at each post, so tests may repoint it) and tracks those under way. */
export class CallbackDelivery {
  private readonly callbacks: SimulatorCallbacks;
  private readonly inflight = new Set<Promise<void>>();
  private insecureAgent: Agent | null = null;

  constructor(callbacks: SimulatorCallbacks) {
    this.callbacks = callbacks;
  }

  /** Sends each notice in the background; delivery failures are retried a few times, never thrown. */
  deliver(notices: GatewayCallback[]): void {
    for (const notice of notices) {
      const sending: Promise<void> = this.post(notice)
        .catch(() => undefined)
        .finally(() => this.inflight.delete(sending));
      this.inflight.add(sending);
    }
  }

  /**
   * Sends the notices one after the other, each once the one before was delivered or given up: their
   * order of arrival is the order given (the faults that reorder notices rely on it).
   */
  deliverInOrder(notices: GatewayCallback[]): void {
    const sending: Promise<void> = (async () => {
      for (const notice of notices) await this.post(notice).catch(() => undefined);
    })().finally(() => this.inflight.delete(sending));
    this.inflight.add(sending);
  }

  /** Waits out every delivery under way, including any started meanwhile. */
  async settle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private async post(notice: GatewayCallback): Promise<void> {
    const { callbackUrl: url, callbackSecret: secret } = this.callbacks;
    if (!url || !secret) return;
    const body = JSON.stringify(notice);
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await request(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [CALLBACK_SIGNATURE_HEADER]: signCallback(secret, body, new Date()),
          },
          body,
          dispatcher: this.dispatcherFor(url),
          headersTimeout: 5000,
          bodyTimeout: 5000,
        });
        await res.body.dump();
        if (res.statusCode < 300) return;
      } catch {
        // Unreachable or timed out: retried below, like any other failed delivery.
      }
      const delay = CALLBACK_RETRY_DELAYS_MS[attempt];
      if (delay === undefined) return;
      await sleep(delay);
    }
  }

  /**
   * Our own API on this machine, or beside it under a single-label name (a compose service such as `api`),
   * runs with a self-signed certificate: no public CA certifies such a name. Anywhere else, TLS is verified.
   */
  private dispatcherFor(url: string): Dispatcher | undefined {
    const host = new URL(url).hostname;
    const local = host === '127.0.0.1' || host === '[::1]' || !host.includes('.');
    if (!local) return undefined;
    this.insecureAgent ??= new Agent({ connect: { rejectUnauthorized: false } });
    return this.insecureAgent;
  }
}
