import { asset } from '../../pages/render.ts';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';

/**
 * Limits are per credential and shared by every API process. Each test presents credentials of its
 * own (random bearer tokens count like real ones: the limiter runs before auth), so counts never leak.
 */
const bogusToken = () => `svc_oat_${randomBytes(32).toString('base64url')}`;
const LIMITED = '/api/v1/customers/';
const counterKey = (secret: string) => `cred:${createHash('sha256').update(secret).digest('hex')}`;

async function hit(api: TestApi, token: string, times: number) {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await api.call('GET', LIMITED, { token })).status);
  return statuses;
}

describe('rate limits (PostgreSQL counters)', () => {
  let a: TestApi;
  let b: TestApi;
  beforeAll(async () => {
    a = await startApi({ RATE_LIMIT_MAX: '5' });
    b = await startApi({ RATE_LIMIT_MAX: '5' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('answers the 6th request of a credential in the window with 429, Retry-After and X-RateLimit-*', async () => {
    const token = bogusToken();
    const first = await a.call('GET', LIMITED, { token });
    expect(first.status).toBe(401);
    expect(first.headers['x-ratelimit-limit']).toBe('5');
    expect(first.headers['x-ratelimit-remaining']).toBe('4');
    expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);

    expect(await hit(a, token, 4)).toEqual([401, 401, 401, 401]);
    const limited = await a.call('GET', LIMITED, { token });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: 'Rate limit exceeded',
      code: 'rate_limited',
      detail: `At most 5 requests per 60 seconds per credential; retry in ${limited.headers['retry-after']} seconds`,
    });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['x-ratelimit-limit']).toBe('5');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-reset']).toBe(String(retryAfter));
  });

  it('limits a valid credential the same way, and no other credential is affected', async () => {
    const tenant = await makeTenant(a.orm);
    expect(await hit(a, tenant.oat, 5)).toEqual([200, 200, 200, 200, 200]);
    expect((await a.call('GET', LIMITED, { token: tenant.oat })).status).toBe(429);

    // Same organization, another credential: a count of its own.
    const byKey = await a.call('GET', LIMITED, { headers: { 'x-service-api-key': tenant.apiKey } });
    expect(byKey.status).toBe(200);
    expect(byKey.headers['x-ratelimit-remaining']).toBe('4');
    expect((await a.call('GET', LIMITED, { token: bogusToken() })).headers['x-ratelimit-remaining']).toBe('4');
  });

  it('shares one count between API processes', async () => {
    const token = bogusToken();
    expect(await hit(a, token, 3)).toEqual([401, 401, 401]);
    const fromB = await hit(b, token, 3);
    expect(fromB).toEqual([401, 401, 429]);
    expect((await a.call('GET', LIMITED, { token })).status).toBe(429);
  });

  it('lets exactly the limit through when a burst arrives at once on two processes', async () => {
    const token = bogusToken();
    // Concurrent requests of one credential are counted in batches; each still gets its own place.
    const burst = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).call('GET', LIMITED, { token })),
    );
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s !== 429)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(19);
    const remaining = burst.filter((r) => r.status !== 429).map((r) => Number(r.headers['x-ratelimit-remaining']));
    expect(remaining.sort()).toEqual([0, 1, 2, 3, 4]);
    const rows = await a.orm.em
      .getConnection()
      .execute('select count from rate_limit_counters where key = ?', [counterKey(token)]);
    expect(rows).toEqual([{ count: 24 }]);
  });

  it('counts requests without a credential by client address', async () => {
    // Both instances see 127.0.0.1; this test owns that address's count (no other test sends none).
    await a.orm.em.getConnection().execute(`delete from rate_limit_counters where key = 'ip:127.0.0.1'`);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await a.call('GET', LIMITED)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const [row] = await a.orm.em
      .getConnection()
      .execute<{ count: number }[]>(`select count from rate_limit_counters where key = 'ip:127.0.0.1'`);
    expect(row!.count).toBe(6);
  });

  it('counts a public read by client address, whatever credential is sent', async () => {
    const counter = `delete from rate_limit_counters where key = 'ip:127.0.0.1'`;
    await a.orm.em.getConnection().execute(counter);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await a.call('GET', '/api/v1/transactions/tx_nobody', { token: bogusToken() })).status);
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
    await a.orm.em.getConnection().execute(counter);
  });

  it('counts every public route by client address, whatever credential is sent (a checkout by client secret)', async () => {
    const counter = `delete from rate_limit_counters where key = 'ip:127.0.0.1'`;
    await a.orm.em.getConnection().execute(counter);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const path = '/api/v1/checkouts/client/cs_nobody';
      statuses.push((await a.call('GET', path, { token: bogusToken() })).status);
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
    await a.orm.em.getConnection().execute(counter);
    // And the document says so.
    const doc = await a.call('GET', '/openapi.json');
    expect(doc.body.info.description).toContain('per client address on public operations');
  });

  it('starts a new window once the current one has ended', async () => {
    const token = bogusToken();
    await hit(a, token, 6);
    expect((await a.call('GET', LIMITED, { token })).status).toBe(429);
    await a.orm.em
      .getConnection()
      .execute(`update rate_limit_counters set window_ends_at = now() - interval '1 second' where key = ?`, [
        counterKey(token),
      ]);
    const fresh = await a.call('GET', LIMITED, { token });
    expect(fresh.status).toBe(401);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('4');
  });

  it("never limits the health probes, nor the pages' static scripts and stylesheets", async () => {
    for (const path of ['/healthz', asset('pages.css')]) {
      for (let i = 0; i < 7; i++) {
        const res = await a.call('GET', path);
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    }
  });

  it('stores no secret: counters are keyed by a hash of the credential', async () => {
    const token = bogusToken();
    await a.call('GET', LIMITED, { token });
    const conn = a.orm.em.getConnection();
    expect(await conn.execute(`select count from rate_limit_counters where key = ?`, [counterKey(token)])).toEqual([
      { count: 1 },
    ]);
    expect(
      await conn.execute(`select key from rate_limit_counters where strpos(key, ?) > 0`, [token.slice(8)]),
    ).toEqual([]);
  });
});

describe('rate limits (Redis counters)', () => {
  let a: TestApi;
  let b: TestApi;
  beforeAll(async () => {
    a = await startApi({ RATE_LIMIT_STORE: 'redis', RATE_LIMIT_MAX: '5' });
    b = await startApi({ RATE_LIMIT_STORE: 'redis', RATE_LIMIT_MAX: '5' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('answers the 6th request with 429 and the headers', async () => {
    const token = bogusToken();
    const first = await a.call('GET', LIMITED, { token });
    expect(first.headers['x-ratelimit-remaining']).toBe('4');
    expect(await hit(a, token, 4)).toEqual([401, 401, 401, 401]);
    const limited = await a.call('GET', LIMITED, { token });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect((await a.call('GET', LIMITED, { token: bogusToken() })).status).toBe(401);
  });

  it('shares one count between API processes', async () => {
    const token = bogusToken();
    expect(await hit(a, token, 3)).toEqual([401, 401, 401]);
    expect(await hit(b, token, 3)).toEqual([401, 401, 429]);
  });
});
