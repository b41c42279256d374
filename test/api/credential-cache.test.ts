import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { CredentialCache } from '../../api/auth/credential-cache.ts';
import type { OrganizationCredential } from '../../api/auth/credentials.ts';
import { hashSecret } from '../../api/auth/tokens.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * Each API process caches verified credentials. A revocation made through one process must be
 * honoured by every other one as soon as PostgreSQL's notice reaches it (moments later): two API
 * instances here stand for two processes, each with its own cache and its own LISTEN connection.
 */

let a: TestApi;
let b: TestApi;
beforeAll(async () => {
  [a, b] = await Promise.all([startApi(), startApi()]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});

const CUSTOMERS = '/api/v1/customers/';
const dashboard = (orgId: string) => `/api/v1/dashboard/organizations/${orgId}`;

/**
 * The other process learns of a revocation from PostgreSQL's NOTIFY, which arrives a moment after the
 * revoking transaction commits: its answers are read until they change (at most a second), and the
 * first one that is no longer a 200 is returned. A broken invalidation keeps answering 200 (the
 * cache lives a minute) and fails.
 */
async function onceRefused(request: () => Promise<{ status: number; body: any }>) {
  let last: { status: number; body: any } | undefined;
  return waitFor(
    async () => {
      last = await request();
      return last.status !== 200 && last;
    },
    {
      what: 'the revocation to reach the other process',
      timeoutMs: 1_000,
      intervalMs: 20,
      describe: () => `${last?.status}`,
    },
  );
}

describe('revocation across API processes', () => {
  it('an API key revoked through instance A is rejected by instance B as soon as its notice arrives', async () => {
    const t = await makeTenant(a.orm);
    const created = await a.call('POST', `${dashboard(t.org.id)}/api-keys`, {
      token: t.ownerJwt,
      body: { name: unique('key'), environment: 'test', scopes: ['read'] },
    });
    const headers = { 'x-service-api-key': created.body.key };
    // Used twice on each instance: the second request is served from the cache.
    for (const api of [a, b, a, b]) expect((await api.call('GET', CUSTOMERS, { headers })).status).toBe(200);

    const revoked = await a.call('POST', `${dashboard(t.org.id)}/api-keys/${created.body.id}/revoke`, {
      token: t.ownerJwt,
    });
    expect(revoked.status).toBe(200);
    const onB = await onceRefused(() => b.call('GET', CUSTOMERS, { headers }));
    expect(onB.status).toBe(401);
    expect(onB.body).toEqual({ error: 'Invalid api key', code: 'unauthorized' });
    expect((await a.call('GET', CUSTOMERS, { headers })).status).toBe(401);
  });

  it('an API key deleted through instance B is rejected by instance A as soon as its notice arrives', async () => {
    const t = await makeTenant(a.orm);
    const created = await b.call('POST', `${dashboard(t.org.id)}/api-keys`, {
      token: t.ownerJwt,
      body: { name: unique('key'), environment: 'test', scopes: ['read'] },
    });
    const headers = { 'x-service-api-key': created.body.key };
    for (const api of [a, a, b]) expect((await api.call('GET', CUSTOMERS, { headers })).status).toBe(200);
    expect(
      (await b.call('DELETE', `${dashboard(t.org.id)}/api-keys/${created.body.id}`, { token: t.ownerJwt })).status,
    ).toBe(204);
    expect((await onceRefused(() => a.call('GET', CUSTOMERS, { headers }))).status).toBe(401);
  });

  it('an access token revoked through instance A is rejected by instance B as soon as its notice arrives', async () => {
    const t = await makeTenant(a.orm);
    const created = await a.call('POST', `${dashboard(t.org.id)}/access-tokens`, {
      token: t.ownerJwt,
      body: { comment: 'sync', scopes: ['customers:read'] },
    });
    const token = created.body.token;
    for (const api of [a, b, a, b]) expect((await api.call('GET', CUSTOMERS, { token })).status).toBe(200);

    expect(
      (await a.call('DELETE', `${dashboard(t.org.id)}/access-tokens/${created.body.id}`, { token: t.ownerJwt })).status,
    ).toBe(204);
    const onB = await onceRefused(() => b.call('GET', CUSTOMERS, { token }));
    expect(onB.status).toBe(401);
    expect(onB.body).toEqual({ error: 'Invalid access token', code: 'unauthorized' });
  });

  it('revoking one credential leaves the others of the organization working everywhere', async () => {
    const t = await makeTenant(a.orm);
    const create = () =>
      a.call('POST', `${dashboard(t.org.id)}/api-keys`, {
        token: t.ownerJwt,
        body: { name: unique('key'), environment: 'test', scopes: ['read'] },
      });
    const [kept, dropped] = [(await create()).body, (await create()).body];
    for (const key of [kept, dropped])
      for (const api of [a, b]) {
        expect((await api.call('GET', CUSTOMERS, { headers: { 'x-service-api-key': key.key } })).status).toBe(200);
      }
    await a.call('POST', `${dashboard(t.org.id)}/api-keys/${dropped.id}/revoke`, { token: t.ownerJwt });
    for (const api of [a, b]) {
      expect((await api.call('GET', CUSTOMERS, { headers: { 'x-service-api-key': kept.key } })).status).toBe(200);
      const refused = await onceRefused(() =>
        api.call('GET', CUSTOMERS, { headers: { 'x-service-api-key': dropped.key } }),
      );
      expect(refused.status).toBe(401);
      expect((await api.call('GET', CUSTOMERS, { token: t.oat })).status).toBe(200);
    }
  });
});

describe('CredentialCache', () => {
  let cache: CredentialCache;
  beforeAll(async () => {
    cache = new CredentialCache(a.orm, a.config.DATABASE_URL, { ttlMs: 60_000, usageFlushMs: 60_000 }, a.app.log);
    await cache.start();
  });
  afterAll(async () => {
    await cache.close();
  });

  const credential = (): OrganizationCredential => ({
    kind: 'oat',
    id: uuidv7(),
    organizationId: uuidv7(),
    scopes: ['customers:read'],
    expiresAt: null,
  });

  it('announces a revocation only when the revoking transaction commits', async () => {
    const hash = hashSecret(unique('secret'));
    cache.set(hash, credential(), cache.mark());

    await expect(
      a.orm.em.fork().transactional(async (tx) => {
        await cache.announceRevocation(tx, hash);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // A notice committed after it arrives after it too (one listening connection, in commit order):
    // once the cache has heard this probe, a notice of the rolled-back revocation would have come first.
    const probe = hashSecret(unique('probe'));
    cache.set(probe, credential(), cache.mark());
    await a.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select pg_notify(?, ?)', ['credential_changed', probe]);
    });
    await until(() => cache.get(probe) === undefined, 5_000, 'the cache to hear the probe notice');
    expect(cache.get(hash)).toBeDefined();

    // Another process's cache (a fresh instance) revokes; this one hears it.
    await a.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select pg_notify(?, ?)', ['credential_changed', hash]);
    });
    await until(() => cache.get(hash) === undefined);
  });

  it('refuses to cache a credential read before an invalidation arrived', async () => {
    const hash = hashSecret(unique('secret'));
    const mark = cache.mark();
    // While the "database read" is in flight, some revocation is announced.
    const em = a.orm.em.fork();
    await em.transactional(async (tx) => cache.announceRevocation(tx, hashSecret(unique('other'))));
    await until(() => cache.mark() !== mark);
    cache.set(hash, credential(), mark);
    expect(cache.get(hash)).toBeUndefined();

    cache.set(hash, credential(), cache.mark());
    expect(cache.get(hash)).toBeDefined();
  });

  it('answers a revoking request only after its own announcement came back', async () => {
    const hash = hashSecret(unique('secret'));
    const listener = new CredentialCache(a.orm, a.config.DATABASE_URL, { ttlMs: 60_000 }, a.app.log);
    await listener.start();
    try {
      listener.set(hash, credential(), listener.mark());
      await a.orm.em.fork().transactional(async (tx) => cache.announceRevocation(tx, hash));
      const started = Date.now();
      await cache.revoked(hash);
      // Well under the 2 s it would wait for an announcement that never comes.
      expect(Date.now() - started).toBeLessThan(1000);
      expect(cache.get(hash)).toBeUndefined();
      // The notice was delivered by PostgreSQL to every listener at the same time.
      await until(() => listener.get(hash) === undefined, 500);
    } finally {
      await listener.close();
    }
  });
});
