import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect } from '@jest/globals';
import axios, { AxiosError, type AxiosAdapter, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { EfiGateway, type EfiOptions } from '../../gateway/efi-adapter.ts';

/**
 * Efí offline, for the adapter's contract tests. The SDK (sdk-node-apis-efi) sends every call, its
 * OAuth included, through axios' default instance, to hosts it fixes (no base URL option): so the
 * seam is axios' adapter, the last step before the network. The SDK still builds each request (its
 * routes, query and body, its headers) as it does live; this answers them from the queue the test
 * sets, and records what was sent. A call nobody answered fails the test, and so does an answer left.
 */

export const PIX_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

export const fixture = (name: string, replace: Record<string, string> = {}): Record<string, unknown> => {
  let text = readFileSync(new URL(`../fixtures/efi/${name}.json`, import.meta.url), 'utf8');
  for (const [from, to] of Object.entries(replace)) text = text.replaceAll(from, to);
  return JSON.parse(text) as Record<string, unknown>;
};

export interface EfiSent {
  method: string;
  host: string;
  path: string;
  query: Record<string, unknown>;
  body: Record<string, unknown> | null;
  headers: Record<string, string>;
}

type Answer =
  | { status: number; body: unknown }
  | { network: true }
  /** Never answered: the adapter's own deadline must end the call. */
  | { hang: true };

interface Expected {
  method: string;
  path: string | RegExp;
  answer: Answer;
}

export interface EfiMock {
  readonly sent: EfiSent[];
  answer(method: string, path: string | RegExp, status: number, body: unknown): void;
  /** The connection drops before any answer (ECONNRESET). */
  dropConnection(method: string, path: string | RegExp): void;
  hang(method: string, path: string | RegExp): void;
}

const isAuth = (path: string) => path === '/oauth/token' || path === '/v1/authorize';

export function mockEfi(): EfiMock {
  const sent: EfiSent[] = [];
  const queue: Expected[] = [];
  let original: InternalAxiosRequestConfig['adapter'];

  const adapter: AxiosAdapter = async (config) => {
    const url = new URL(config.url!);
    const method = (config.method ?? 'get').toUpperCase();
    const respond = (status: number, data: unknown): AxiosResponse => ({
      data,
      status,
      statusText: String(status),
      headers: { 'content-type': 'application/json' },
      config,
      request: {},
    });
    if (isAuth(url.pathname))
      return respond(200, { access_token: 'test-token', token_type: 'Bearer', expires_in: 3600 });
    const body =
      typeof config.data === 'string' && config.data ? (JSON.parse(config.data) as Record<string, unknown>) : null;
    const headers = Object.fromEntries(
      Object.entries(config.headers?.toJSON?.() ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    sent.push({ method, host: url.host, path: url.pathname, query: { ...(config.params ?? {}) }, body, headers });
    const next = queue.shift();
    if (!next) throw new Error(`Efí mock: nothing answers ${method} ${url.pathname}`);
    const matches = typeof next.path === 'string' ? next.path === url.pathname : next.path.test(url.pathname);
    if (next.method !== method || !matches) {
      throw new Error(`Efí mock: expected ${next.method} ${String(next.path)}, got ${method} ${url.pathname}`);
    }
    if ('hang' in next.answer) return new Promise<AxiosResponse>(() => {});
    if ('network' in next.answer) {
      throw new AxiosError('socket hang up', 'ECONNRESET', config, {});
    }
    const response = respond(next.answer.status, next.answer.body);
    if (next.answer.status >= 400) {
      throw new AxiosError(
        `Request failed with status code ${next.answer.status}`,
        AxiosError.ERR_BAD_REQUEST,
        config,
        {},
        response,
      );
    }
    return response;
  };

  beforeEach(() => {
    original = axios.defaults.adapter;
    axios.defaults.adapter = adapter;
    sent.length = 0;
    queue.length = 0;
  });
  afterEach(() => {
    axios.defaults.adapter = original;
    expect(queue.map((q) => `${q.method} ${String(q.path)}`)).toEqual([]);
  });

  return {
    sent,
    answer: (method, path, status, body) => queue.push({ method, path, answer: { status, body } }),
    dropConnection: (method, path) => queue.push({ method, path, answer: { network: true } }),
    hang: (method, path) => queue.push({ method, path, answer: { hang: true } }),
  };
}

export const NOW = new Date('2026-01-10T13:00:10.000Z');

export function efiGateway(overrides: Partial<EfiOptions> = {}): EfiGateway {
  return new EfiGateway({
    clientId: 'Client_Id_test',
    clientSecret: 'Client_Secret_test',
    // Never read: the mocked transport opens no TLS connection.
    certificate: Buffer.from('not a certificate').toString('base64'),
    certificateBase64: true,
    sandbox: true,
    pixKey: PIX_KEY,
    account: { agency: '0001', number: '1234567', type: 'PAGAMENTO' },
    timeoutMs: 2000,
    notificationUrl: 'https://billing.example.com/api/v1/gateway/efi/notifications?hmac=s&kind=charge&ignorar=',
    clock: () => NOW,
    ...overrides,
  });
}
