import { createServer, type Server } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from '../../api/openapi-types.ts';

/**
 * An event as the billing engine delivers it, typed from the OpenAPI document's `webhooks` (the types
 * `npm run client:types` generates): a union discriminated by `type`, whose `data` is the record as
 * its GET answers it (`sale.paid` carries a `Sale`, `subscription.past_due` a `Subscription`, …).
 */
export type BillingEvent = {
  [T in keyof webhooks]: webhooks[T]['post']['requestBody']['content']['application/json'];
}[keyof webhooks];
export type EventType = BillingEvent['type'];
/** The event of one type: `EventOf<'sale.paid'>['data']` is the sale. */
export type EventOf<T extends EventType> = Extract<BillingEvent, { type: T }>;

/** Handlers by event type, each given its event with `data` typed; an event without one is acknowledged. */
export type Handlers = { [T in EventType]?: (event: EventOf<T>) => Promise<void> };

/** Calls the handler of the event's type, if any (the compiler checks each handler against its type). */
export async function dispatch(handlers: Handlers, event: BillingEvent): Promise<void> {
  const handler = handlers[event.type] as ((e: BillingEvent) => Promise<void>) | undefined;
  await handler?.(event);
}

/** An example of handlers: what a shop does when a sale is paid or a subscription falls past due. */
export const shopHandlers = (log: (line: string) => void): Handlers => ({
  'sale.paid': async ({ data: sale }) => {
    log(`ship ${sale.product.name} to ${sale.customer.email}: ${sale.amount} ${sale.currency} paid`);
  },
  'subscription.past_due': async ({ data: subscription }) => {
    log(`subscription ${subscription.id} past due since ${subscription.current_period_end}`);
  },
  'refund.created': async ({ data: refund }) => {
    // No sale: a late payment of a checkout that ended without one, given back (its transaction names it).
    const of = refund.sale_id ? `sale ${refund.sale_id}` : `transaction ${refund.transaction_id}`;
    log(`refund ${refund.id} of ${refund.amount} on ${of}: ${refund.status}`);
  },
});

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
