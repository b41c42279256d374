import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { isPortOpen } from '../../scripts/processes.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';
import { call, startApi, type TestApi } from '../helpers/api.ts';
import { testEnv } from '../helpers/env.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';

/** Transport and error conventions that hold for every route (DESIGN.md "Conventions"). */
let api: TestApi;
let tenant: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  api = await startApi();
  tenant = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
});

const portOf = (t: TestApi) => Number(new URL(t.baseUrl).port);

/** A request in plain HTTP (no TLS), as a misconfigured client would send it. */
function plainHttp(port: number, urlPath: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const HTTPS_REQUIRED = {
  error: 'HTTPS is required',
  detail: 'Plain HTTP requests are not served',
  code: 'https_required',
};

describe('HTTPS only', () => {
  it('answers plain HTTP on the HTTPS port with 403 and the error body, never a redirect', async () => {
    const res = await plainHttp(portOf(api), '/api/v1/customers/', { authorization: `Bearer ${tenant.oat}` });
    expect(res.status).toBe(403);
    expect(res.headers.location).toBeUndefined();
    expect(JSON.parse(res.text)).toEqual(HTTPS_REQUIRED);
    // The same port still speaks TLS.
    expect((await api.call('GET', '/healthz')).status).toBe(200);
  });

  describe('behind a proxy (TLS_MODE=proxy)', () => {
    let proxied: TestApi;
    let origin: string;
    beforeAll(async () => {
      proxied = await startApi({ TLS_MODE: 'proxy' });
      // The app speaks plain HTTP here; the proxy in front of it terminates TLS.
      origin = `http://127.0.0.1:${portOf(proxied)}`;
    });
    afterAll(async () => {
      await proxied.close();
    });

    it('serves a request the proxy received over HTTPS', async () => {
      const res = await call(origin, 'GET', '/api/v1/customers/', {
        token: tenant.oat,
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.status).toBe(200);
    });

    it.each([
      ['without X-Forwarded-Proto', {}],
      ['with X-Forwarded-Proto: http', { 'x-forwarded-proto': 'http' }],
    ])('refuses a request %s', async (_label, headers) => {
      const res = await call(origin, 'GET', '/api/v1/customers/', { token: tenant.oat, headers });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(HTTPS_REQUIRED);
    });
  });
});

describe('error bodies', () => {
  it('answers an unknown route with 404 and the error body', async () => {
    const res = await api.call('POST', '/api/v1/nothing-here?x=1', { body: {} });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'Route not found',
      detail: 'POST /api/v1/nothing-here?x=1',
      code: 'route_not_found',
    });
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await api.call('POST', '/api/v1/customers/', {
      token: tenant.oat,
      raw: 'email=a@example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
      detail: expect.any(String),
    });
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await api.call('POST', '/api/v1/customers/', {
      token: tenant.oat,
      raw: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Request body is not valid JSON',
      code: 'invalid_json',
      detail: expect.any(String),
    });
  });

  it('answers a body over BODY_LIMIT_BYTES with 413', async () => {
    const small = await startApi({ BODY_LIMIT_BYTES: '2048' });
    try {
      const big = await small.call('POST', '/api/v1/customers/', {
        token: tenant.oat,
        body: { email: 'big@example.com', name: 'x'.repeat(3000) },
      });
      expect(big.status).toBe(413);
      expect(big.body).toEqual({
        error: 'Request body is too large',
        code: 'payload_too_large',
        detail: expect.any(String),
      });
      // Just under the limit is parsed (and then judged by the schema).
      const fits = await small.call('POST', '/api/v1/customers/', {
        token: tenant.oat,
        body: { email: 'nope', name: 'x'.repeat(1500) },
      });
      expect(fits.status).toBe(400);
    } finally {
      await small.close();
    }
  });

  it('names the offending field in a schema validation 400', async () => {
    const res = await api.call('POST', '/api/v1/customers/', { token: tenant.oat, body: { email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Invalid request',
      code: 'validation_error',
      detail: expect.stringContaining('body.email'),
    });
    const query = await api.call('GET', '/api/v1/customers/?limit=1000', { token: tenant.oat });
    expect(query.status).toBe(400);
    expect(query.body.detail).toContain('querystring.limit');
  });

  it('answers an unexpected failure with 500 and no stack trace', async () => {
    // A real database failure: a trigger that raises for one email.
    const address = `${unique('boom')}@example.com`;
    const name = `fail_${uuidv7().replaceAll('-', '')}`;
    const sql = (q: string) => api.orm.em.getConnection().execute(q);
    await sql(`create function ${name}() returns trigger language plpgsql as $$
      begin if new.email = '${address}' then raise exception 'simulated failure in %', tg_name; end if; return new; end $$`);
    await sql(`create trigger ${name} before insert on customers for each row execute function ${name}()`);
    try {
      const res = await api.call('POST', '/api/v1/customers/', { token: tenant.oat, body: { email: address } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error', code: 'internal_error' });
      expect(JSON.stringify(res.body)).not.toMatch(/simulated|at .*\.ts|stack/);
    } finally {
      await sql(`drop trigger ${name} on customers`);
      await sql(`drop function ${name}()`);
    }
  });
});

describe('request ids', () => {
  it('returns an X-Request-Id on every response, and echoes one the client sent', async () => {
    const generated = await api.call('GET', '/healthz');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await api.call('GET', '/api/v1/customers/');
    expect(failed.status).toBe(401);
    expect(failed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await api.call('GET', '/healthz', { headers: { 'x-request-id': 'client-trace-42' } });
    expect(echoed.headers['x-request-id']).toBe('client-trace-42');
  });
});

describe('logs', () => {
  let server: ChildProcess;
  let output = '';
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `https://127.0.0.1:${port}`;
    // The real entry point, logging everything it would in production and more.
    server = spawn(process.execPath, [path.join(REPO_ROOT, 'api/server.ts')], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...testEnv({ LOG_LEVEL: 'trace', PORT: String(port) }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until(() => isPortOpen('127.0.0.1', port), 10_000, `the API to listen on port ${port}`);
  });
  afterAll(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
  });

  it('never contain the Authorization, X-Service-Api-Key or Cookie values', async () => {
    const requestId = `log-probe-${uuidv7()}`;
    const bogusKey = `svc_test_${'k'.repeat(43)}`;
    const responses = [
      await call(origin, 'GET', '/api/v1/customers/', { token: tenant.oat, headers: { 'x-request-id': requestId } }),
      await call(origin, 'GET', '/api/v1/customers/', {
        headers: { 'x-service-api-key': tenant.apiKey, cookie: 'session=cookie-secret-123' },
      }),
      await call(origin, 'GET', '/api/v1/customers/', { headers: { 'x-service-api-key': bogusKey } }),
      await call(origin, 'POST', '/api/v1/customers/', { token: tenant.oat, body: { email: 'bad' } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 401, 400]);
    // Every request's log is written, to its end (the line of its response).
    const completed = (id: string) =>
      output.split('\n').some((line) => line.includes(id) && line.includes('request completed'));
    await until(
      () => responses.every((r) => completed(String(r.headers['x-request-id']))),
      10_000,
      'the four requests to be logged',
    );
    // The requests were logged (so this test reads the real log) ...
    expect(output).toContain(requestId);
    // ... and no secret is in it.
    for (const secret of [tenant.oat, tenant.apiKey, bogusKey, 'cookie-secret-123'])
      expect(output).not.toContain(secret);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
