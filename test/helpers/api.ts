import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll } from '@jest/globals';
import type { Client } from '@temporalio/client';
import path from 'node:path';
import { Agent, request } from 'undici';
import { loadConfig, type Config } from '../../config/env.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { buildApp } from '../../api/app.ts';
import { createGateway } from '../../gateway/index.ts';
import type { PaymentGateway } from '../../gateway/port.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';
import { testEnv } from './env.ts';
import type { App } from '../../api/route-deps.ts';

/** Self-signed certificate of the test run: trusted by this client only. */
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

export interface TestApi {
  app: App;
  orm: Orm;
  config: Config;
  /** The API's own gateway (the simulator in tests): tests reach its fault hooks through it. */
  gateway: PaymentGateway;
  baseUrl: string;
  call<T = any>(method: string, url: string, options?: CallOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  headers?: Record<string, string>;
  /** Raw body, sent as is (with the given headers). */
  raw?: string | Buffer;
}

/**
 * Starts the real API over HTTPS on a free port (or on PORT when the overrides name one: a test whose
 * PUBLIC_BASE_URL must be known before the start), against the test database and Temporal server.
 */
export async function startApi(envOverrides: Record<string, string> = {}): Promise<TestApi> {
  const config = loadConfig(testEnv(envOverrides));
  // A small pool unless the test names one: many tests' APIs share one PostgreSQL.
  const poolMax = envOverrides.DATABASE_POOL_MAX ? config.DATABASE_POOL_MAX : 5;
  const orm = await openOrm(config.DATABASE_URL, poolMax, { connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS });
  const temporal = createTemporalClient(config);
  const tls = {
    cert: await readFile(path.join(REPO_ROOT, config.TLS_CERT_FILE)),
    key: await readFile(path.join(REPO_ROOT, config.TLS_KEY_FILE)),
  };
  const gateway = await createGateway(config, orm);
  const app = await buildApp({ config, orm, temporal, gateway, tls });
  await app.listen({ host: '127.0.0.1', port: config.PORT });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const baseUrl = `https://127.0.0.1:${address.port}`;

  return {
    app,
    orm,
    config,
    gateway,
    baseUrl,
    call: (method, url, options = {}) => call(baseUrl, method, url, options),
    async close() {
      await app.close();
      await temporal.connection.close();
      await orm.close();
    },
  };
}

export async function call<T = any>(
  baseUrl: string,
  method: string,
  url: string,
  options: CallOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(baseUrl + url, { method: method as 'GET', headers, body, dispatcher: insecure });
  const text = await res.body.text();
  let parsed: unknown = text;
  if ((res.headers['content-type'] ?? '').toString().includes('json') && text) parsed = JSON.parse(text);
  return { status: res.statusCode, headers: res.headers, body: parsed as T };
}

/**
 * A test file's API and Temporal client: started before its tests (`started` hands them over), and
 * closed after them once the simulator's callbacks under way have been delivered. With
 * `callbacksHere`, the simulator in this API process notifies this API (it listens on a port of its own).
 */
export function useApi(
  started: (stack: { api: TestApi; temporal: Client }) => void,
  options: { callbacksHere?: boolean } = {},
): void {
  let stack: { api: TestApi; temporal: Client } | null = null;
  beforeAll(async () => {
    const api = await startApi();
    if (options.callbacksHere) {
      (api.gateway as SimulatedGateway).callbacks.callbackUrl = `${api.baseUrl}/api/v1/gateway/callbacks`;
    }
    stack = { api, temporal: createTemporalClient(api.config) };
    started(stack);
  });
  afterAll(async () => {
    if (!stack) return;
    await (stack.api.gateway as SimulatedGateway).settleCallbacks();
    await stack.temporal.connection.close();
    await stack.api.close();
  });
}
