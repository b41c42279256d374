import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeMember, makeTenant, unique, userJwt } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';
import { expectNothingWritten, type Watched } from '../helpers/unchanged.ts';

/** Organization Access Tokens (svc_oat_): created, listed and revoked in the dashboard by owners and admins. */

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ CREDENTIAL_USAGE_FLUSH_MS: '50' });
});
afterAll(async () => {
  await api.close();
});

/** Raw SQL on the test database; rows are loosely typed. */
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

const tokensPath = (orgId: string) => `/api/v1/dashboard/organizations/${orgId}/access-tokens`;
const CUSTOMERS = '/api/v1/customers/';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY_MS = 86_400_000;

async function createToken(jwt: string, orgId: string, body: Record<string, unknown> = {}) {
  const res = await api.call('POST', tokensPath(orgId), {
    token: jwt,
    body: { comment: unique('token'), scopes: ['customers:read'], ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; token: string; comment: string; expires_at: string | null };
}

/** An organization's access tokens and events, for checks that a refused request wrote nothing. */
const tokensOf = (orgId: string): Watched[] => [
  [
    `select id, comment, scopes, token_hash, expires_at, revoked_at from organization_access_tokens
     where organization_id = ? order by id`,
    [orgId],
  ],
  ['select id, type from events where organization_id = ? order by id', [orgId]],
];

async function tokenRow(id: string) {
  const [row] = await sql('select * from organization_access_tokens where id = ?', [id]);
  return row;
}

describe('creating an access token', () => {
  it('returns the token once, stores its hash, and it authenticates within its scopes', async () => {
    const t = await makeTenant(api.orm);
    const before = Date.now();
    const res = await api.call('POST', tokensPath(t.org.id), {
      token: t.ownerJwt,
      body: { comment: 'CRM sync', scopes: ['customers:read', 'customers:read'], expires_in_days: 30 },
    });
    expect(res.status).toBe(201);
    const token: string = res.body.token;
    expect(token).toMatch(/^svc_oat_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      comment: 'CRM sync',
      scopes: ['customers:read'],
      masked_token: `svc_oat_${token.slice(8, 12)}…${token.slice(-4)}`,
      created_at: expect.stringMatching(ISO),
      expires_at: expect.stringMatching(ISO),
      last_used_at: null,
      token,
    });
    const expiresAt = new Date(res.body.expires_at).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS);

    const row = await tokenRow(res.body.id);
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token.slice(8));
    const [event] = await sql(`select data from events where organization_id = ? and type = 'access_token.created'`, [
      t.org.id,
    ]);
    expect(event.data).toMatchObject({ id: res.body.id, masked_token: res.body.masked_token });
    expect(JSON.stringify(event.data)).not.toContain(token.slice(8));

    expect((await api.call('GET', CUSTOMERS, { token })).status).toBe(200);
    const write = await api.call('POST', CUSTOMERS, { token, body: { email: `${unique('c')}@example.com` } });
    expect(write.status).toBe(403);
    expect(write.body.error).toBe('Access token lacks required scope');

    await until(async () => (await tokenRow(res.body.id)).last_used_at !== null);
  });

  it('accepts an explicit expires_at, or no expiry at all', async () => {
    const t = await makeTenant(api.orm);
    const at = new Date(Date.now() + 7 * DAY_MS).toISOString();
    expect((await createToken(t.ownerJwt, t.org.id, { expires_at: at })).expires_at).toBe(at);
    expect((await createToken(t.ownerJwt, t.org.id)).expires_at).toBeNull();
  });

  it.each([
    ['no scopes', { scopes: [] }],
    ['an unknown scope', { scopes: ['customers:read', 'everything'] }],
    ['no comment', { comment: undefined }],
    ['expires_in_days 0', { expires_in_days: 0 }],
    ['expires_in_days above 3650', { expires_in_days: 3651 }],
    ['a fractional expires_in_days', { expires_in_days: 1.5 }],
    [
      'both expires_in_days and expires_at',
      { expires_in_days: 1, expires_at: new Date(Date.now() + DAY_MS).toISOString() },
    ],
  ])('rejects %s with 400', async (_label, patch) => {
    const t = await makeTenant(api.orm);
    const res = await api.call('POST', tokensPath(t.org.id), {
      token: t.ownerJwt,
      body: { comment: 'x', scopes: ['customers:read'], ...patch },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });

  it('rejects a well-formed expires_at in the past with 422 invalid_expires_at', async () => {
    const t = await makeTenant(api.orm);
    const past = new Date(Date.now() - 1000).toISOString();
    const res = await api.call('POST', tokensPath(t.org.id), {
      token: t.ownerJwt,
      body: { comment: 'x', scopes: ['customers:read'], expires_at: past },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'expires_at must be in the future',
      detail: `body.expires_at: ${past} is not in the future`,
      code: 'invalid_expires_at',
    });
  });

  it('is for owners and admins: a member gets 403, others 404, an OAT 403', async () => {
    const t = await makeTenant(api.orm);
    const adminEmail = `${unique('admin')}@example.com`;
    const memberEmail = `${unique('member')}@example.com`;
    await makeMember(api.orm, t.org.id, adminEmail, 'admin');
    await makeMember(api.orm, t.org.id, memberEmail, 'member');
    await createToken(await userJwt(adminEmail), t.org.id);

    const body = { comment: 'x', scopes: ['customers:read'] };
    const member = await userJwt(memberEmail);
    const other = await makeTenant(api.orm);
    // No token minted, no event recorded (last_used_at aside: the refused OAT was used).
    const refusedMint = (token: string) =>
      expectNothingWritten(sql, tokensOf(t.org.id), () => api.call('POST', tokensPath(t.org.id), { token, body }));
    expect((await refusedMint(member)).status).toBe(403);
    expect((await api.call('GET', tokensPath(t.org.id), { token: member })).status).toBe(403);
    expect((await refusedMint(other.ownerJwt)).status).toBe(404);
    expect((await api.call('GET', tokensPath(t.org.id), { token: other.ownerJwt })).status).toBe(404);
    expect((await refusedMint(t.oat)).status).toBe(403);
  });
});

describe('listing and revoking access tokens', () => {
  it('lists tokens that are not revoked, paginated, never the secret', async () => {
    const t = await makeTenant(api.orm);
    const a = await createToken(t.ownerJwt, t.org.id, { comment: 'a' });
    const b = await createToken(t.ownerJwt, t.org.id, { comment: 'b' });
    const c = await createToken(t.ownerJwt, t.org.id, { comment: 'c' });
    expect((await api.call('DELETE', `${tokensPath(t.org.id)}/${b.id}`, { token: t.ownerJwt })).status).toBe(204);

    // The fixture's OAT ('test') is listed too.
    const res = await api.call('GET', `${tokensPath(t.org.id)}?limit=2`, { token: t.ownerJwt });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total_count: 3, max_page: 2 });
    expect(res.body.items.map((i: any) => i.comment)).toEqual(['c', 'a']);
    expect(Object.keys(res.body.items[0]).sort()).toEqual(
      ['comment', 'created_at', 'expires_at', 'id', 'last_used_at', 'masked_token', 'scopes'].sort(),
    );
    const page2 = await api.call('GET', `${tokensPath(t.org.id)}?limit=2&page=2`, { token: t.ownerJwt });
    expect(page2.body.items.map((i: any) => i.comment)).toEqual(['test']);
    const text = JSON.stringify([res.body, page2.body]);
    for (const token of [a, b, c]) expect(text).not.toContain(token.token.slice(8));
  });

  it('revokes with 204: the next request with the token is 401, a second revoke is 404', async () => {
    const t = await makeTenant(api.orm);
    const { id, token } = await createToken(t.ownerJwt, t.org.id);
    expect((await api.call('GET', CUSTOMERS, { token })).status).toBe(200);
    expect((await api.call('GET', CUSTOMERS, { token })).status).toBe(200);

    const res = await api.call('DELETE', `${tokensPath(t.org.id)}/${id}`, { token: t.ownerJwt });
    expect(res.status).toBe(204);
    const after = await api.call('GET', CUSTOMERS, { token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'Invalid access token', code: 'unauthorized' });

    const row = await tokenRow(id);
    expect(row.revoked_at).not.toBeNull();
    expect(row.comment).not.toBeNull();
    const again = await api.call('DELETE', `${tokensPath(t.org.id)}/${id}`, { token: t.ownerJwt });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Access token not found', code: 'not_found' });
    const events = await sql(`select 1 from events where organization_id = ? and type = 'access_token.revoked'`, [
      t.org.id,
    ]);
    expect(events).toHaveLength(1);
  });

  it("answers 404 for another organization's token and refuses members", async () => {
    const a = await makeTenant(api.orm);
    const b = await makeTenant(api.orm);
    const ofB = await createToken(b.ownerJwt, b.org.id);
    expect((await api.call('DELETE', `${tokensPath(a.org.id)}/${ofB.id}`, { token: a.ownerJwt })).status).toBe(404);
    expect((await api.call('DELETE', `${tokensPath(b.org.id)}/${ofB.id}`, { token: a.ownerJwt })).status).toBe(404);
    expect((await api.call('DELETE', `${tokensPath(a.org.id)}/${uuidv7()}`, { token: a.ownerJwt })).status).toBe(404);
    const memberEmail = `${unique('member')}@example.com`;
    await makeMember(api.orm, b.org.id, memberEmail, 'member');
    const member = await userJwt(memberEmail);
    const revoke = () => api.call('DELETE', `${tokensPath(b.org.id)}/${ofB.id}`, { token: member });
    expect((await expectNothingWritten(sql, tokensOf(b.org.id), revoke)).status).toBe(403);
    expect((await api.call('GET', CUSTOMERS, { token: ofB.token })).status).toBe(200);
  });

  it('rejects an expired token with 401, even one cached while valid', async () => {
    const t = await makeTenant(api.orm);
    const old = await createToken(t.ownerJwt, t.org.id);
    await sql(`update organization_access_tokens set expires_at = now() - interval '1 second' where id = ?`, [old.id]);
    const res = await api.call('GET', CUSTOMERS, { token: old.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Access token expired', code: 'unauthorized' });

    const expiresAt = new Date(Date.now() + 1500);
    const soon = await createToken(t.ownerJwt, t.org.id, { expires_at: expiresAt.toISOString() });
    expect((await api.call('GET', CUSTOMERS, { token: soon.token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 50));
    expect((await api.call('GET', CUSTOMERS, { token: soon.token })).status).toBe(401);
  });
});
