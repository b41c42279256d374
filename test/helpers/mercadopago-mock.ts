import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach } from '@jest/globals';
import { fetch as undiciFetch, getGlobalDispatcher, MockAgent, setGlobalDispatcher, type Dispatcher } from 'undici';
import { MercadoPagoGateway } from '../../gateway/mercadopago-adapter.ts';

/**
 * Mercado Pago offline, for the adapter's contract tests: an undici MockAgent as the global
 * dispatcher intercepts https://api.mercadopago.com (any other host is refused), records each request
 * the SDK sends and answers fixtures of test/fixtures/mercadopago (written from the API reference).
 *
 * The SDK calls the global `fetch`. In a plain Node 24 process that is Node's built-in fetch, which
 * honours the npm undici's setGlobalDispatcher (mercadopago-adapter.test.ts proves it in a child
 * process). Inside Jest's VM context the built-in fetch reads the dispatcher of the outer realm, so
 * the context's `fetch` is undici's own (the implementation Node bundles) while a file runs.
 */
export const MP = 'https://api.mercadopago.com';

export const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../fixtures/mercadopago/${name}.json`, import.meta.url), 'utf8'));

export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
  /** The body as the SDK wrote it. */
  raw: string | null;
}

export interface MercadoPagoMock {
  /** Every request that got an answer, in order (header names lower-cased, JSON bodies parsed). */
  readonly sent: Sent[];
  /** The next `method path` answers `status` with `body`, after `delayMs`. */
  answer(method: string, path: string | ((p: string) => boolean), status: number, body: object, delayMs?: number): void;
}

/** Installs the mock around each test of the calling file; every interceptor set must be used. */
export function mockMercadoPago(): MercadoPagoMock {
  let original: Dispatcher;
  const builtInFetch = globalThis.fetch;
  let agent: MockAgent;
  const sent: Sent[] = [];

  beforeAll(() => {
    original = getGlobalDispatcher();
    globalThis.fetch = undiciFetch as unknown as typeof fetch;
  });
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    setGlobalDispatcher(agent);
    sent.length = 0;
  });
  afterEach(async () => {
    agent.assertNoPendingInterceptors();
    await agent.close();
    setGlobalDispatcher(original);
  });
  afterAll(() => {
    setGlobalDispatcher(original);
    globalThis.fetch = builtInFetch;
  });

  return {
    sent,
    answer(method, path, status, body, delayMs = 0) {
      const scope = agent
        .get(MP)
        .intercept({ method, path })
        .reply(status, (opts) => {
          const headers = Object.fromEntries(
            Object.entries((opts.headers ?? {}) as Record<string, string>).map(([k, v]) => [
              k.toLowerCase(),
              String(v),
            ]),
          );
          const raw = typeof opts.body === 'string' ? opts.body : null;
          const json = raw === null ? null : (JSON.parse(raw) as Record<string, unknown>);
          sent.push({ method: opts.method, path: opts.path, headers, body: json, raw });
          return body;
        });
      if (delayMs > 0) scope.delay(delayMs);
    },
  };
}

export const NOTIFICATION_URL = 'https://billing.example/api/v1/gateway/mercadopago/notifications';

export const mercadoPagoGateway = (timeoutMs = 2000, clock?: () => Date) =>
  new MercadoPagoGateway({ accessToken: 'TEST-0000-token', timeoutMs, notificationUrl: NOTIFICATION_URL, clock });

/**
 * Mercado Pago's x-signature over a notification's manifest, with its x-request-id (its webhooks' reference).
 * `ts` is in seconds, as the page's example and the SDK have it; pass `Date.now()` for the milliseconds
 * its text speaks of.
 */
export function signedNotice(dataId: string, secret: string, ts = Math.floor(Date.now() / 1000)) {
  const requestId = randomUUID();
  const v1 = createHmac('sha256', secret).update(`id:${dataId};request-id:${requestId};ts:${ts};`).digest('hex');
  return { 'x-signature': `ts=${ts},v1=${v1}`, 'x-request-id': requestId };
}
