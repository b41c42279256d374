import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { waitFor } from './processes.ts';

/** A delivery as a merchant's server got it: its headers and body, and whether each secret verified it. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: { id: string; type: string; created_at: string; organization_id: string; data: Record<string, unknown> };
  raw: string;
  /** Per secret given to the receiver, in order: whether `standardwebhooks` verified the delivery with it. */
  verified: boolean[];
  /** What the receiver answered. */
  status: number;
}

/**
 * A local merchant server: a real HTTP listener on 127.0.0.1 that verifies every delivery with the
 * `standardwebhooks` package (as docs/api.md tells merchants to) and answers what `answer` says: a
 * status, or 'hang' (never answers, as a dead server behind a load balancer).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  secrets: string[] = [];
  answer: (r: Received) => number | 'hang' = () => 200;
  private server: Server | null = null;
  private readonly hanging: ServerResponse[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Ends every delivery left hanging, with a 503 (as a load balancer giving up on a dead server). */
  releaseHanging(): void {
    for (const res of this.hanging.splice(0)) res.writeHead(503).end();
  }

  /** Deliveries of events of `type` so far. */
  ofType(type: string): Received[] {
    return this.received.filter((r) => r.body.type === type);
  }

  /** Waits (on the deliveries, never a fixed sleep) until `check` holds. */
  async until(check: (received: Received[]) => boolean, timeoutMs = 20_000): Promise<Received[]> {
    return waitFor(async () => check(this.received) && this.received, {
      what: 'the receiver to get the deliveries awaited',
      timeoutMs,
      describe: () => JSON.stringify(this.summary()),
    });
  }

  private summary() {
    return this.received.map((r) => ({ type: r.body.type, id: r.id, status: r.status }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    const verified = this.secrets.map((secret) => {
      try {
        new Webhook(secret).verify(raw, headers);
        return true;
      } catch {
        return false;
      }
    });
    const received: Received = {
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body: JSON.parse(raw) as Received['body'],
      raw,
      verified,
      status: 0,
    };
    const answer = this.answer(received);
    received.status = answer === 'hang' ? 0 : answer;
    this.received.push(received);
    if (answer === 'hang') {
      this.hanging.push(res);
      return;
    }
    res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'not now');
  }
}
