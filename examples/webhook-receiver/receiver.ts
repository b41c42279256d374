import { createServer, type Server } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** An event as the billing engine delivers it. */
export interface BillingEvent {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

/**
 * A merchant's webhook receiver: verifies each delivery's signature with the endpoint's secret
 * (`whsec_…`), answers 2xx only once the event is handled, and handles an event once however often it
 * comes (`webhook-id` is the event's id on every attempt and redelivery).
 */
export function webhookReceiver(secret: string, handle: (event: BillingEvent) => Promise<void>): Server {
  const webhook = new Webhook(secret);
  const seen = new Set<string>(); // in production: a table with a unique key on the event id
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8'); // verify the raw body, before any JSON parsing
    let event: BillingEvent;
    try {
      event = webhook.verify(body, req.headers as Record<string, string>) as BillingEvent;
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      res.writeHead(400).end('bad signature');
      return;
    }
    if (!seen.has(event.id)) {
      await handle(event);
      seen.add(event.id);
    }
    res.writeHead(204).end();
  });
}
