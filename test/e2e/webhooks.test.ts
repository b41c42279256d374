import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { useApi, type TestApi } from '../helpers/api.ts';
import type { AddressInfo } from 'node:net';
import { dispatch, webhookReceiver, type BillingEvent } from '../../examples/webhook-receiver/receiver.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/processes.ts';
import { deliveryStarted, relayPassed } from '../helpers/webhook-relay.ts';

/**
 * Webhooks end to end: the real API, the test run's worker process (its relay LISTENs to the outbox,
 * its webhook queue delivers) and real local HTTP receivers that verify every delivery with the
 * `standardwebhooks` package, as a merchant's server would.
 */
let api: TestApi;
let temporal: Client;
useApi((stack) => ({ api, temporal } = stack));

let tenant: Awaited<ReturnType<typeof makeTenant>>;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  tenant = await makeTenant(api.orm);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});

async function receiver(): Promise<{ receiver: WebhookReceiver; url: string }> {
  const r = new WebhookReceiver();
  receivers.push(r);
  return { receiver: r, url: await r.start() };
}

const call = (method: string, url: string, body?: unknown, token = tenant.oat) =>
  api.call(method, url, { token, ...(body === undefined ? {} : { body }) });

/** A new endpoint of the tenant for `types` (all when empty), its receiver given its secret. */
async function endpoint(types: string[] = [], tenantOat = tenant.oat) {
  const { receiver: r, url } = await receiver();
  const res = await call('POST', '/api/v1/webhooks/', { url, event_types: types }, tenantOat);
  expect(res.status).toBe(201);
  r.secrets = [res.body.secret];
  return { receiver: r, id: res.body.id as string, secret: res.body.secret as string, url };
}

/** An event of the tenant: a customer made through the API (customer.created). */
async function newCustomer(token = tenant.oat): Promise<string> {
  const res = await call(
    'POST',
    '/api/v1/customers/',
    { email: `w-${Date.now()}-${Math.random()}@example.com` },
    token,
  );
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function deliveriesOf(endpointId: string) {
  const res = await call('GET', `/api/v1/webhook-deliveries/?endpoint_id=${endpointId}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.items as { id: string; event_id: string; status: string; attempts: number; event_type: string }[];
}

describe('webhook endpoints', () => {
  it('shows the secret once (whsec_), never in a read; lists only the organization’s endpoints', async () => {
    const made = await endpoint(['customer.created']);
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const read = await call('GET', `/api/v1/webhooks/${made.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ url: made.url, event_types: ['customer.created'], enabled: true });
    expect(read.body).not.toHaveProperty('secret');
    expect((await call('PATCH', `/api/v1/webhooks/${made.id}`, {})).body).toEqual(read.body);
    const other = await makeTenant(api.orm);
    expect((await call('GET', `/api/v1/webhooks/${made.id}`, undefined, other.oat)).status).toBe(404);
    const list = await call('GET', '/api/v1/webhooks/', undefined, other.oat);
    expect(list.body.items).toEqual([]);
  });

  it.each([
    ['http to a public host', 'http://example.com/hooks', 422],
    ['another scheme', 'ftp://127.0.0.1/hooks', 422],
    ['credentials in the URL', 'https://user:pw@example.com/hooks', 422],
    ['no URL at all', undefined, 400],
  ])('refuses %s', async (_, url, status) => {
    const res = await call('POST', '/api/v1/webhooks/', url === undefined ? {} : { url });
    expect(res.status).toBe(status);
    if (status === 422) expect(res.body.code).toBe('invalid_url');
  });

  it('refuses an unknown event type with a 400 naming the field, and writes nothing', async () => {
    const before = (await call('GET', '/api/v1/webhooks/?limit=100')).body.pagination.total_count;
    const res = await call('POST', '/api/v1/webhooks/', {
      url: 'https://example.com/h',
      event_types: ['customer.made'],
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('event_types');
    expect((await call('GET', '/api/v1/webhooks/?limit=100')).body.pagination.total_count).toBe(before);
  });

  it('needs webhooks scopes: an OAT with another scope gets 403', async () => {
    const { makeOat } = await import('../helpers/fixtures.ts');
    const oat = await makeOat(api.orm, tenant.org.id, ['customers:read']);
    expect((await call('GET', '/api/v1/webhooks/', undefined, oat)).status).toBe(403);
  });
});

describe('webhook deliveries', () => {
  it('delivers a committed event within a second, signed (webhook-id is the event id) and verified by the receiver', async () => {
    const e = await endpoint(['customer.created']);
    const customerId = await newCustomer();
    const [got] = await e.receiver.until((r) => r.length >= 1);
    expect(got!.verified).toEqual([true]);
    expect(got!.body).toMatchObject({ type: 'customer.created', organization_id: tenant.org.id });
    expect(got!.body.data).toMatchObject({ id: customerId });
    expect(got!.id).toBe(got!.body.id);
    const event = await call('GET', `/api/v1/events/${got!.id}`);
    expect(event.status).toBe(200);
    expect(JSON.parse(got!.raw)).toEqual(event.body);

    await until(async () => (await deliveriesOf(e.id))[0]?.status === 'succeeded');
    const [delivery] = await deliveriesOf(e.id);
    expect(delivery).toMatchObject({ event_id: got!.id, event_type: 'customer.created', attempts: 1 });
    const detail = await call('GET', `/api/v1/webhook-deliveries/${delivery!.id}`);
    expect(detail.body.attempt_log).toEqual([
      expect.objectContaining({ number: 1, status_code: 200, succeeded: true, response_excerpt: 'ok', manual: false }),
    ]);
  });

  it('does not send an endpoint the types it did not ask for', async () => {
    const only = await endpoint(['sale.paid']);
    const all = await endpoint([]);
    await newCustomer();
    const got = (await all.receiver.until((r) => r.some((x) => x.body.type === 'customer.created'))).find(
      (x) => x.body.type === 'customer.created',
    )!;
    // Once the relay is past the event, no delivery of it will start: the other endpoint has none.
    await relayPassed(api.orm, got.id);
    expect(await deliveryStarted(temporal, got.id, only.id)).toBe(false);
    expect(only.receiver.received).toEqual([]);
  });

  it('tries again after a failure: the same webhook-id, until a 2xx; every attempt recorded', async () => {
    const e = await endpoint(['customer.created']);
    let calls = 0;
    e.receiver.answer = () => (++calls === 1 ? 503 : 200);
    await newCustomer();
    const got = await e.receiver.until((r) => r.length >= 2, 30_000);
    expect(got.map((r) => r.status)).toEqual([503, 200]);
    expect(got[1]!.id).toBe(got[0]!.id);
    await until(async () => (await deliveriesOf(e.id))[0]?.status === 'succeeded');
    const [delivery] = await deliveriesOf(e.id);
    expect(delivery!.attempts).toBe(2);
    const detail = await call('GET', `/api/v1/webhook-deliveries/${delivery!.id}`);
    expect(detail.body.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([503, 200]);
  });

  it('a receiver that hangs does not delay a fast one, nor hold workflow tasks waiting for its slots', async () => {
    const slow = await endpoint(['customer.created']);
    slow.receiver.answer = () => 'hang';
    const fast = await endpoint(['customer.created']);
    // More events than the worker's calls to one endpoint at once (4).
    await Promise.all(Array.from({ length: 6 }, () => newCustomer()));
    await slow.receiver.until((r) => r.length >= 4);
    const started = Date.now();
    await fast.receiver.until((r) => r.length >= 6);
    // The slow calls wait 15 s for their answers; the fast endpoint got every delivery meanwhile.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(slow.receiver.received).toHaveLength(4);
    // The fast endpoint's deliveries were each attempted within its run's first workflow task; of the
    // slow one's, two found its slots taken and wait for one as activities (no workflow task held).
    const scheduled = async (endpointId: string) => {
      const events = await Promise.all(
        (await deliveriesOf(endpointId)).map(async (d) => {
          const history = await temporal.workflow.getHandle(`webhook:${d.event_id}:${endpointId}`).fetchHistory();
          return history.events!.filter((e) => e.activityTaskScheduledEventAttributes).length;
        }),
      );
      return events.sort();
    };
    expect(await scheduled(fast.id)).toEqual([0, 0, 0, 0, 0, 0]);
    await until(async () => (await scheduled(slow.id)).join() === '0,0,0,0,1,1', 5_000);
  });

  it('redelivers by hand an event whose delivery succeeded, with the same webhook-id', async () => {
    const e = await endpoint(['customer.created']);
    await newCustomer();
    const [first] = await e.receiver.until((r) => r.length >= 1);
    await until(async () => (await deliveriesOf(e.id))[0]?.status === 'succeeded');
    const res = await call('POST', `/api/v1/webhooks/${e.id}/redeliver`, { event_id: first!.id });
    expect(res.status).toBe(202);
    const got = await e.receiver.until((r) => r.length >= 2);
    expect(got[1]!.id).toBe(first!.id);
    expect(got[1]!.verified).toEqual([true]);
    await until(async () => (await deliveriesOf(e.id))[0]?.attempts === 2);
    const detail = await call('GET', `/api/v1/webhook-deliveries/${(await deliveriesOf(e.id))[0]!.id}`);
    expect(detail.body.attempt_log.map((a: { manual: boolean }) => a.manual)).toEqual([false, true]);
  });

  it('a rotated secret: both the old and the new one verify deliveries during the overlap', async () => {
    const e = await endpoint(['customer.created']);
    const rotated = await call('POST', `/api/v1/webhooks/${e.id}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(e.secret);
    e.receiver.secrets = [e.secret, rotated.body.secret];
    await newCustomer();
    const [got] = await e.receiver.until((r) => r.length >= 1);
    expect(got!.verified).toEqual([true, true]);
    expect(got!.signature.split(' ')).toHaveLength(2);
  });

  it('a test ping goes to that endpoint only; a disabled endpoint gets nothing, and no ping or redelivery', async () => {
    // Subscribed to some types only: the test event reaches it anyway (it cannot be subscribed to).
    const a = await endpoint(['customer.created']);
    const b = await endpoint([]);
    const ping = await call('POST', `/api/v1/webhooks/${a.id}/ping`);
    expect(ping.status).toBe(202);
    const [got] = await a.receiver.until((r) => r.some((x) => x.body.type === 'webhook_endpoint.ping'));
    expect(a.receiver.ofType('webhook_endpoint.ping')[0]!.id).toBe(ping.body.event_id);
    expect(got).toBeDefined();
    await relayPassed(api.orm, ping.body.event_id);
    expect(await deliveryStarted(temporal, ping.body.event_id, b.id)).toBe(false);
    expect(b.receiver.ofType('webhook_endpoint.ping')).toEqual([]);

    expect((await call('PATCH', `/api/v1/webhooks/${b.id}`, { enabled: false })).body.enabled).toBe(false);
    const before = b.receiver.received.length;
    await newCustomer();
    const created = (await a.receiver.until((r) => r.some((x) => x.body.type === 'customer.created'))).find(
      (x) => x.body.type === 'customer.created',
    )!;
    await relayPassed(api.orm, created.id);
    expect(await deliveryStarted(temporal, created.id, b.id)).toBe(false);
    expect(b.receiver.received.slice(before).filter((r) => r.body.type === 'customer.created')).toEqual([]);
    expect((await call('POST', `/api/v1/webhooks/${b.id}/ping`)).status).toBe(409);
    const event = a.receiver.ofType('customer.created')[0]!.id;
    expect((await call('POST', `/api/v1/webhooks/${b.id}/redeliver`, { event_id: event })).status).toBe(409);
  });
});

describe('the receiver of docs/api.md (examples/webhook-receiver)', () => {
  it('handles a real delivery once, even redelivered, and refuses a forged one with 400', async () => {
    // The endpoint first (its secret is the receiver's), then pointed at the receiver once it listens.
    const made = await call('POST', '/api/v1/webhooks/', {
      url: 'http://127.0.0.1:9/',
      event_types: ['customer.created'],
    });
    const handled: BillingEvent[] = [];
    const emails: string[] = [];
    const server = webhookReceiver(made.body.secret, async (event) => {
      handled.push(event);
      // Its typed handlers: `data` is the customer (the compiler knows its email).
      await dispatch({ 'customer.created': async ({ data }) => void emails.push(data.email) }, event);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/billing-webhooks`;
      expect((await call('PATCH', `/api/v1/webhooks/${made.body.id}`, { url })).status).toBe(200);
      const customerId = await newCustomer();
      await until(async () => handled.length === 1);
      expect(handled[0]).toMatchObject({ type: 'customer.created', data: { id: customerId } });
      expect(emails).toEqual([(handled[0]!.data as { email: string }).email]);
      await until(async () => (await deliveriesOf(made.body.id))[0]?.status === 'succeeded');
      const again = await call('POST', `/api/v1/webhooks/${made.body.id}/redeliver`, { event_id: handled[0]!.id });
      expect(again.status).toBe(202);
      await until(async () => (await deliveriesOf(made.body.id))[0]?.attempts === 2);
      expect(handled).toHaveLength(1);

      const forged = await fetch(url, {
        method: 'POST',
        headers: {
          'webhook-id': 'evt',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: JSON.stringify({ id: 'evt', type: 'sale.paid' }),
      });
      expect(forged.status).toBe(400);
      expect(handled).toHaveLength(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
