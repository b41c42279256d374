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
    for (const notice of notices) this.track(() => this.post(notice));
  }

  /**
   * Sends the notices one after the other, each once the one before was delivered or given up: their
   * order of arrival is the order given (the faults that reorder notices rely on it).
   */
  deliverInOrder(notices: GatewayCallback[]): void {
    this.track(async () => {
      for (const notice of notices) await this.post(notice);
    });
  }

  /**
   * Posts the BCB's webhooks: JSON bodies to URLs of their own, in the order given, retried as callbacks
   * are. The BCB's PSPs authenticate by mTLS; the simulator signs them as its callbacks when it has a
   * secret (the sandbox's stand-in, checked by our endpoint as it checks the callbacks).
   */
  deliverBcb(posts: { url: string; body: unknown }[]): void {
    if (posts.length === 0) return;
    this.track(async () => {
      for (const { url, body } of posts) {
        const text = JSON.stringify(body);
        const secret = this.callbacks.callbackSecret;
        const signature: Record<string, string> = {};
        if (secret) signature[CALLBACK_SIGNATURE_HEADER] = signCallback(secret, text, new Date());
        await this.postJson(url, text, signature);
      }
    });
  }

  /** Waits out every delivery under way, including any started meanwhile. */
  async settle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private track(send: () => Promise<void>): void {
    const sending: Promise<void> = send()
      .catch(() => undefined)
      .finally(() => this.inflight.delete(sending));
    this.inflight.add(sending);
  }

  private async post(notice: GatewayCallback): Promise<void> {
    const { callbackUrl: url, callbackSecret: secret } = this.callbacks;
    if (!url || !secret) return;
    const body = JSON.stringify(notice);
    await this.postJson(url, body, { [CALLBACK_SIGNATURE_HEADER]: signCallback(secret, body, new Date()) });
  }

  private async postJson(url: string, body: string, headers: Record<string, string>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
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
