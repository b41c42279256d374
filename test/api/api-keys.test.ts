import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeMember, makeOrganization, makeTenant, unique, userJwt } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';
import { expectNothingWritten, type Watched } from '../helpers/unchanged.ts';

/**
 * API keys: managed in the dashboard by owners and admins (spec, Authentication → API keys and the
 * "API key moves" table), and used by server-side integrations in X-Service-Api-Key.
 * Key use is exercised on POST /api/v1/customer-portal/sessions/ (needs write) and on
 * GET /api/v1/customers/ (needs read).
 */

let api: TestApi;
beforeAll(async () => {
  // last_used_at is flushed in batches; a short interval lets a test see it.
  api = await startApi({ CREDENTIAL_USAGE_FLUSH_MS: '50' });
});
afterAll(async () => {
  await api.close();
});

/** Raw SQL on the test database; rows are loosely typed. */
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

const keysPath = (orgId: string) => `/api/v1/dashboard/organizations/${orgId}/api-keys`;
const SESSIONS = '/api/v1/customer-portal/sessions/';
const CUSTOMERS = '/api/v1/customers/';
const KEY_FORMAT = /^svc_test_[A-Za-z0-9_-]{43}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function insertCustomer(orgId: string): Promise<string> {
  const id = uuidv7();
  await sql(
    `insert into customers (id, organization_id, email, created_at, updated_at) values (?, ?, ?, now(), now())`,
    [id, orgId, `${unique('buyer')}@example.com`],
  );
  return id;
}

async function createKey(jwt: string, orgId: string, body: Record<string, unknown> = {}) {
  const res = await api.call('POST', keysPath(orgId), {
    token: jwt,
    body: { name: unique('key'), environment: 'test', scopes: ['read', 'write'], ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; key: string; name: string };
}

/** A write request with the key in X-Service-Api-Key (or other headers). */
function openSession(customerId: string, headers: Record<string, string>) {
  return api.call('POST', SESSIONS, { headers, body: { customer_id: customerId } });
}

async function keyRow(id: string) {
  const [row] = await sql('select * from api_keys where id = ?', [id]);
  return row;
}

describe('creating an API key in the dashboard', () => {
  it('returns the secret once, stores only its hash, and records the event', async () => {
    const t = await makeTenant(api.orm);
    const res = await api.call('POST', keysPath(t.org.id), {
      token: t.ownerJwt,
      body: { name: '  Backend  ', environment: 'test', scopes: ['write', 'read', 'write'] },
    });
    expect(res.status).toBe(201);
    const key: string = res.body.key;
    expect(key).toMatch(KEY_FORMAT);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Backend',
      environment: 'test',
      scopes: ['read', 'write'],
      masked_key: `svc_test_${key.slice(9, 13)}…${key.slice(-4)}`,
      created_at: expect.stringMatching(ISO),
      last_used_at: null,
      expires_at: null,
      revoked: false,
      revoked_at: null,
      status: 'active',
      key,
    });

    const row = await keyRow(res.body.id);
    expect(row.secret_hash).toBe(sha256(key));
    expect(row.organization_id).toBe(t.org.id);
    expect(row.created_by_user_id).toBe(t.ownerId);
    expect(JSON.stringify(row)).not.toContain(key.slice(9));

    const events = await sql(`select data from events where organization_id = ? and type = 'api_key.created'`, [
      t.org.id,
    ]);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ id: res.body.id, masked_key: res.body.masked_key, status: 'active' });
    expect(JSON.stringify(events[0].data)).not.toContain(key.slice(9));
  });

  it('creates live keys with the svc_live_ prefix and keeps an expiration date', async () => {
    const t = await makeTenant(api.orm);
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const res = await api.call('POST', keysPath(t.org.id), {
      token: t.ownerJwt,
      body: { name: 'prod', environment: 'live', scopes: ['read'], expires_at: expiresAt },
    });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(res.body.masked_key).toMatch(/^svc_live_.{4}….{4}$/);
    expect(res.body).toMatchObject({ environment: 'live', scopes: ['read'], expires_at: expiresAt, status: 'active' });
  });

  it('lets an admin create keys, refuses a member (403) and hides the organization from others (404)', async () => {
    const t = await makeTenant(api.orm);
    const adminEmail = `${unique('admin')}@example.com`;
    const memberEmail = `${unique('member')}@example.com`;
    await makeMember(api.orm, t.org.id, adminEmail, 'admin');
    await makeMember(api.orm, t.org.id, memberEmail, 'member');
    const body = { name: 'k', environment: 'test', scopes: ['read'] };

    expect((await api.call('POST', keysPath(t.org.id), { token: await userJwt(adminEmail), body })).status).toBe(201);

    const member = await api.call('POST', keysPath(t.org.id), { token: await userJwt(memberEmail), body });
    expect(member.status).toBe(403);
    expect(member.body).toEqual({
      error: 'Only the organization owner or an admin can manage API keys and access tokens',
      code: 'forbidden',
    });
    expect((await api.call('GET', keysPath(t.org.id), { token: await userJwt(memberEmail) })).status).toBe(403);

    const stranger = await api.call('POST', keysPath(t.org.id), {
      token: await userJwt(`${unique('x')}@example.com`),
      body,
    });
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ error: 'Organization not found', code: 'not_found' });

    // The owner of another organization is a stranger here too.
    const other = await makeTenant(api.orm);
    expect((await api.call('POST', keysPath(t.org.id), { token: other.ownerJwt, body })).status).toBe(404);
    expect((await api.call('POST', keysPath(uuidv7()), { token: t.ownerJwt, body })).status).toBe(404);
    expect((await api.call('POST', keysPath('not-a-uuid'), { token: t.ownerJwt, body })).status).toBe(404);

    const [{ count }] = await sql('select count(*)::int as count from api_keys where organization_id = ?', [t.org.id]);
    expect(count).toBe(2); // the fixture's key and the admin's
  });

  it('accepts only a user JWT: no token is 401, an API key or an OAT is 403', async () => {
    const t = await makeTenant(api.orm);
    const body = { name: 'k', environment: 'test', scopes: ['read'] };
    const none = await api.call('POST', keysPath(t.org.id), { body });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('Missing Authorization header');

    const withKey = await api.call('POST', keysPath(t.org.id), { body, headers: { 'x-service-api-key': t.apiKey } });
    expect(withKey.status).toBe(403);
    expect(withKey.body.error).toBe('Api key lacks required scope');

    expect((await api.call('POST', keysPath(t.org.id), { body, token: t.oat })).status).toBe(403);
  });

  it.each([
    ['no scopes', { scopes: [] }],
    ['the admin scope, which the dashboard does not offer', { scopes: ['admin'] }],
    ['an unknown scope', { scopes: ['read', 'delete'] }],
    ['an unknown environment', { environment: 'production' }],
    ['an empty name', { name: '   ' }],
    ['no name', { name: undefined }],
    ['an expiration that is not a timestamp', { expires_at: 'next week' }],
    ['an unknown field', { rotate: true }],
  ])('rejects %s with 400', async (_label, patch) => {
    const t = await makeTenant(api.orm);
    const res = await api.call('POST', keysPath(t.org.id), {
      token: t.ownerJwt,
      body: { name: 'k', environment: 'test', scopes: ['read'], ...patch },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Invalid request', code: 'validation_error' });
  });

  it('rejects a well-formed expiration date in the past with 422 invalid_expires_at and creates nothing', async () => {
    const t = await makeTenant(api.orm);
    const past = new Date(Date.now() - 60_000).toISOString();
    const res = await api.call('POST', keysPath(t.org.id), {
      token: t.ownerJwt,
      body: { name: 'k', environment: 'test', scopes: ['read'], expires_at: past },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'expires_at must be in the future',
      detail: `body.expires_at: ${past} is not in the future`,
      code: 'invalid_expires_at',
    });
    const listed = await api.call('GET', keysPath(t.org.id), { token: t.ownerJwt });
    expect(listed.body.active.filter((k: { name: string }) => k.name === 'k')).toEqual([]);
  });
});

describe('listing API keys', () => {
  it('shows active and expired keys, and revoked keys in their own section, never the secret', async () => {
    const org = await makeOrganization(api.orm);
    const email = `${unique('owner')}@example.com`;
    await makeMember(api.orm, org.id, email, 'owner');
    const jwt = await userJwt(email);

    const first = await createKey(jwt, org.id, { name: 'first' });
    const expired = await createKey(jwt, org.id, { name: 'expired' });
    await sql(`update api_keys set expires_at = now() - interval '1 minute' where id = ?`, [expired.id]);
    const revoked = await createKey(jwt, org.id, { name: 'revoked' });
    expect((await api.call('POST', `${keysPath(org.id)}/${revoked.id}/revoke`, { token: jwt })).status).toBe(200);
    const deleted = await createKey(jwt, org.id, { name: 'deleted' });
    expect((await api.call('DELETE', `${keysPath(org.id)}/${deleted.id}`, { token: jwt })).status).toBe(204);
    const last = await createKey(jwt, org.id, { name: 'last', scopes: ['read'] });

    const res = await api.call('GET', keysPath(org.id), { token: jwt });
    expect(res.status).toBe(200);
    expect(res.body.active.map((k: any) => [k.name, k.status])).toEqual([
      ['last', 'active'],
      ['expired', 'expired'],
      ['first', 'active'],
    ]);
    expect(res.body.revoked.map((k: any) => [k.name, k.status, k.revoked])).toEqual([['revoked', 'revoked', true]]);
    expect(Object.keys(res.body.active[0]).sort()).toEqual(
      [
        'created_at',
        'environment',
        'expires_at',
        'id',
        'last_used_at',
        'masked_key',
        'name',
        'revoked',
        'revoked_at',
        'scopes',
        'status',
      ].sort(),
    );
    expect(res.body.active[0]).toMatchObject({ id: last.id, scopes: ['read'], environment: 'test', revoked_at: null });
    expect(res.body.revoked[0].revoked_at).toMatch(ISO);
    const text = JSON.stringify(res.body);
    for (const k of [first, expired, revoked, deleted, last]) expect(text).not.toContain(k.key.slice(9));
  });
});

describe('revoking and deleting API keys', () => {
  it('revokes: 200 with the key, audit data kept, idempotent on a second call', async () => {
    const t = await makeTenant(api.orm);
    const created = await createKey(t.ownerJwt, t.org.id, { name: 'to revoke' });
    const customerId = await insertCustomer(t.org.id);
    expect((await openSession(customerId, { 'x-service-api-key': created.key })).status).toBe(201);
    await until(async () => (await keyRow(created.id)).last_used_at !== null);

    const res = await api.call('POST', `${keysPath(t.org.id)}/${created.id}/revoke`, { token: t.ownerJwt });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      name: 'to revoke',
      status: 'revoked',
      revoked: true,
      last_used_at: expect.stringMatching(ISO),
    });
    expect(res.body.revoked_at).toMatch(ISO);
    expect(res.body).not.toHaveProperty('key');

    const again = await api.call('POST', `${keysPath(t.org.id)}/${created.id}/revoke`, { token: t.ownerJwt });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);

    const row = await keyRow(created.id);
    expect(row.name).toBe('to revoke');
    expect(row.deleted_at).toBeNull();
    expect(new Date(row.revoked_at).toISOString()).toBe(res.body.revoked_at);
    const events = await sql(`select type from events where organization_id = ? and type = 'api_key.revoked'`, [
      t.org.id,
    ]);
    expect(events).toHaveLength(1);
  });

  it('deletes: 204, the key leaves the list, the row stays revoked and deleted, a second delete is 404', async () => {
    const t = await makeTenant(api.orm);
    const created = await createKey(t.ownerJwt, t.org.id);
    const res = await api.call('DELETE', `${keysPath(t.org.id)}/${created.id}`, { token: t.ownerJwt });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');

    const row = await keyRow(created.id);
    expect(row.deleted_at).not.toBeNull();
    expect(row.revoked_at).not.toBeNull();
    const list = await api.call('GET', keysPath(t.org.id), { token: t.ownerJwt });
    expect([...list.body.active, ...list.body.revoked].map((k: any) => k.id)).not.toContain(created.id);

    expect((await api.call('DELETE', `${keysPath(t.org.id)}/${created.id}`, { token: t.ownerJwt })).status).toBe(404);
    const revoke = await api.call('POST', `${keysPath(t.org.id)}/${created.id}/revoke`, { token: t.ownerJwt });
    expect(revoke.status).toBe(404);
    expect(revoke.body).toEqual({ error: 'API key not found', code: 'not_found' });
  });

  it('answers 404 for a key of another organization, an unknown id, and refuses members', async () => {
    const a = await makeTenant(api.orm);
    const b = await makeTenant(api.orm);
    const keyOfB = await createKey(b.ownerJwt, b.org.id);
    for (const [method, suffix] of [
      ['POST', '/revoke'],
      ['DELETE', ''],
    ] as const) {
      expect(
        (await api.call(method, `${keysPath(a.org.id)}/${keyOfB.id}${suffix}`, { token: a.ownerJwt })).status,
      ).toBe(404);
      expect(
        (await api.call(method, `${keysPath(b.org.id)}/${keyOfB.id}${suffix}`, { token: a.ownerJwt })).status,
      ).toBe(404);
      expect((await api.call(method, `${keysPath(a.org.id)}/${uuidv7()}${suffix}`, { token: a.ownerJwt })).status).toBe(
        404,
      );
      expect((await api.call(method, `${keysPath(a.org.id)}/nope${suffix}`, { token: a.ownerJwt })).status).toBe(404);
    }
    const memberEmail = `${unique('member')}@example.com`;
    await makeMember(api.orm, b.org.id, memberEmail, 'member');
    const member = await userJwt(memberEmail);
    // Refused, and nothing written: B's keys as they were, no event.
    const keysOfB: Watched[] = [
      [
        'select id, name, scopes, expires_at, revoked_at, deleted_at from api_keys where organization_id = ? order by id',
        [b.org.id],
      ],
      ['select id, type from events where organization_id = ? order by id', [b.org.id]],
    ];
    const revoke = () => api.call('POST', `${keysPath(b.org.id)}/${keyOfB.id}/revoke`, { token: member });
    expect((await expectNothingWritten(sql, keysOfB, revoke)).status).toBe(403);
    const remove = () => api.call('DELETE', `${keysPath(b.org.id)}/${keyOfB.id}`, { token: member });
    expect((await expectNothingWritten(sql, keysOfB, remove)).status).toBe(403);
  });
});

describe('authenticating with an API key', () => {
  it('names the X-Service-Api-Key header when no credential is sent (401)', async () => {
    const t = await makeTenant(api.orm);
    const customerId = await insertCustomer(t.org.id);
    for (const res of [await openSession(customerId, {}), await api.call('GET', CUSTOMERS)]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Missing X-Service-Api-Key header');
    }
  });

  it('reads the header name in any case, and accepts Authorization: Bearer as a fallback', async () => {
    const t = await makeTenant(api.orm);
    const { key } = await createKey(t.ownerJwt, t.org.id);
    const customerId = await insertCustomer(t.org.id);
    for (const headers of [
      { 'X-Service-Api-Key': key },
      { 'x-service-api-key': key },
      { 'X-SERVICE-API-KEY': key },
      { authorization: `Bearer ${key}` },
    ] as Record<string, string>[]) {
      const res = await openSession(customerId, headers);
      expect(res.status).toBe(201);
      expect(res.body.customer_id).toBe(customerId);
    }
    const read = await api.call('GET', CUSTOMERS, { headers: { 'X-Service-Api-Key': key } });
    expect(read.status).toBe(200);
    expect(read.body.items.map((c: any) => c.id)).toEqual([customerId]);
  });

  it('rejects a wrong prefix, stray spaces and malformed keys with 401 Invalid api key', async () => {
    const t = await makeTenant(api.orm);
    const { key } = await createKey(t.ownerJwt, t.org.id);
    const customerId = await insertCustomer(t.org.id);
    const body = key.slice('svc_test_'.length);
    for (const headers of [
      { 'x-service-api-key': `svc_prod_${body}` },
      { 'x-service-api-key': `sk_test_${body}` },
      { 'x-service-api-key': `svc_oat_${body}` },
      { 'x-service-api-key': `svc_test_ ${body.slice(1)}` },
      { 'x-service-api-key': `svc_test_${body.slice(0, 20)} ${body.slice(21)}` },
      { 'x-service-api-key': `svc_test _${body}` },
      { 'x-service-api-key': key.slice(0, -1) },
      { 'x-service-api-key': `${key}x` },
      { 'x-service-api-key': '' },
      { authorization: `Bearer svc_test_ ${body.slice(1)}` },
      { authorization: `Bearer  ${key}` },
    ] as Record<string, string>[]) {
      const res = await openSession(customerId, headers);
      expect({ headers, status: res.status, body: res.body }).toEqual({
        headers,
        status: 401,
        body: { error: 'Invalid api key', code: 'unauthorized' },
      });
    }
  });

  it('rejects a live key in this test deployment with 401 Invalid api key', async () => {
    const t = await makeTenant(api.orm);
    const live = await createKey(t.ownerJwt, t.org.id, { environment: 'live' });
    const customerId = await insertCustomer(t.org.id);
    const res = await openSession(customerId, { 'x-service-api-key': live.key });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Invalid api key');
    expect((await api.call('GET', CUSTOMERS, { token: live.key })).body.error).toBe('Invalid api key');
  });

  it('rejects a revoked key on the very next request, although it was just used and cached', async () => {
    const t = await makeTenant(api.orm);
    const { id, key } = await createKey(t.ownerJwt, t.org.id);
    const customerId = await insertCustomer(t.org.id);
    expect((await openSession(customerId, { 'x-service-api-key': key })).status).toBe(201);
    expect((await api.call('GET', CUSTOMERS, { headers: { 'x-service-api-key': key } })).status).toBe(200);

    expect((await api.call('POST', `${keysPath(t.org.id)}/${id}/revoke`, { token: t.ownerJwt })).status).toBe(200);
    const write = await openSession(customerId, { 'x-service-api-key': key });
    expect(write.status).toBe(401);
    expect(write.body).toEqual({ error: 'Invalid api key', code: 'unauthorized' });
    const read = await api.call('GET', CUSTOMERS, { token: key });
    expect(read.status).toBe(401);
    expect(read.body.error).toBe('Invalid api key');
  });

  it('rejects a deleted key with 401 Invalid api key', async () => {
    const t = await makeTenant(api.orm);
    const { id, key } = await createKey(t.ownerJwt, t.org.id);
    const customerId = await insertCustomer(t.org.id);
    expect((await openSession(customerId, { 'x-service-api-key': key })).status).toBe(201);
    expect((await api.call('DELETE', `${keysPath(t.org.id)}/${id}`, { token: t.ownerJwt })).status).toBe(204);
    const res = await openSession(customerId, { 'x-service-api-key': key });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Invalid api key');
  });

  it('rejects an expired key with 401 Api key expired, including a key that expires while cached', async () => {
    const t = await makeTenant(api.orm);
    const customerId = await insertCustomer(t.org.id);

    const old = await createKey(t.ownerJwt, t.org.id);
    await sql(`update api_keys set expires_at = now() - interval '1 second' where id = ?`, [old.id]);
    const res = await openSession(customerId, { 'x-service-api-key': old.key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Api key expired', code: 'unauthorized' });

    const expiresAt = new Date(Date.now() + 1500);
    const soon = await createKey(t.ownerJwt, t.org.id, { expires_at: expiresAt.toISOString() });
    expect((await openSession(customerId, { 'x-service-api-key': soon.key })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 50));
    const later = await openSession(customerId, { 'x-service-api-key': soon.key });
    expect(later.status).toBe(401);
    expect(later.body.error).toBe('Api key expired');

    const list = await api.call('GET', keysPath(t.org.id), { token: t.ownerJwt });
    expect(list.body.active.find((k: any) => k.id === soon.id).status).toBe('expired');
  });

  it('answers 403 Api key lacks required scope for a read-only key on a write route', async () => {
    const t = await makeTenant(api.orm);
    const readOnly = await createKey(t.ownerJwt, t.org.id, { scopes: ['read'] });
    const customerId = await insertCustomer(t.org.id);
    const res = await openSession(customerId, { 'x-service-api-key': readOnly.key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'Api key lacks required scope', code: 'forbidden' });
    expect((await api.call('GET', CUSTOMERS, { headers: { 'x-service-api-key': readOnly.key } })).status).toBe(200);

    // A write key can read too (write ⊇ read).
    const writeOnly = await createKey(t.ownerJwt, t.org.id, { scopes: ['write'] });
    expect((await api.call('GET', CUSTOMERS, { headers: { 'x-service-api-key': writeOnly.key } })).status).toBe(200);
    expect((await openSession(customerId, { 'x-service-api-key': writeOnly.key })).status).toBe(201);
  });

  it('records last_used_at after use and shows it in the list', async () => {
    const t = await makeTenant(api.orm);
    const { id, key } = await createKey(t.ownerJwt, t.org.id);
    expect((await keyRow(id)).last_used_at).toBeNull();
    const before = Date.now();
    expect((await api.call('GET', CUSTOMERS, { headers: { 'x-service-api-key': key } })).status).toBe(200);
    await until(async () => (await keyRow(id)).last_used_at !== null);
    const usedAt = new Date((await keyRow(id)).last_used_at);
    expect(usedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(usedAt.getTime()).toBeLessThanOrEqual(Date.now());

    const list = await api.call('GET', keysPath(t.org.id), { token: t.ownerJwt });
    expect(list.body.active.find((k: any) => k.id === id).last_used_at).toBe(usedAt.toISOString());
  });

  it("never reaches another organization's records (404)", async () => {
    const a = await makeTenant(api.orm);
    const b = await makeTenant(api.orm);
    const keyOfA = await createKey(a.ownerJwt, a.org.id);
    const customerOfB = await insertCustomer(b.org.id);

    const session = await openSession(customerOfB, { 'x-service-api-key': keyOfA.key });
    expect(session.status).toBe(404);
    expect(session.body).toEqual({ error: 'Customer not found', code: 'not_found' });
    const read = await api.call('GET', `${CUSTOMERS}${customerOfB}`, { headers: { 'x-service-api-key': keyOfA.key } });
    expect(read.status).toBe(404);
    const list = await api.call('GET', CUSTOMERS, { headers: { 'x-service-api-key': keyOfA.key } });
    expect(list.body.items.map((c: any) => c.id)).not.toContain(customerOfB);
    // The fixture's key of B still works for B: the 404 is about tenancy, not the customer.
    expect((await openSession(customerOfB, { 'x-service-api-key': b.apiKey })).status).toBe(201);
  });

  it('is refused (403) on routes that do not accept API keys', async () => {
    const t = await makeTenant(api.orm);
    const { key } = await makeApiKey(api.orm, t.org.id, { scopes: ['read', 'write'] });
    const res = await api.call('GET', '/api/v1/customer-portal/customer', { headers: { 'x-service-api-key': key } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Api key lacks required scope');
  });
});
