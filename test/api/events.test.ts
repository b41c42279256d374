import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeTenant, unique } from '../helpers/fixtures.ts';

let api: TestApi;
let T: Awaited<ReturnType<typeof makeTenant>>;
let B: Awaited<ReturnType<typeof makeTenant>>;
let c1: any, c2: any, c3: any, renamed: any;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The tenant's history: three customers created, the first renamed, the second deleted. */
beforeAll(async () => {
  api = await startApi();
  T = await makeTenant(api.orm);
  B = await makeTenant(api.orm);
  const create = async (name: string) => {
    const res = await api.call('POST', '/api/v1/customers/', {
      token: T.oat,
      body: { email: `${unique(name)}@example.com`, name },
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  c1 = await create('one');
  c2 = await create('two');
  c3 = await create('three');
  renamed = (await api.call('PATCH', `/api/v1/customers/${c1.id}`, { token: T.oat, body: { name: 'uno' } })).body;
  expect((await api.call('DELETE', `/api/v1/customers/${c2.id}`, { token: T.oat })).status).toBe(204);
  await api.call('POST', '/api/v1/customers/', { token: B.oat, body: { email: `${unique('b')}@example.com` } });
});
afterAll(async () => {
  await api.close();
});

const list = (qs = '', token = T.oat) => api.call('GET', `/api/v1/events/${qs}`, { token });

describe('GET /api/v1/events/', () => {
  it('lists the organization’s events newest first, in the payload shape', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total_count: 5, max_page: 1 });
    const [token] = await api.orm.em
      .getConnection()
      .execute<{ id: string }[]>('select id from organization_access_tokens where organization_id = ?', [T.org.id]);
    const oatId = token!.id;
    const envelope = (type: string, data: unknown) => ({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type,
      created_at: expect.stringMatching(ISO),
      organization_id: T.org.id,
      // Every change here was the tenant's access token's.
      actor: { type: 'access_token', id: oatId },
      data,
    });
    expect(res.body.items).toEqual([
      envelope('customer.deleted', expect.objectContaining({ id: c2.id, email: c2.email })),
      envelope('customer.updated', { ...renamed, changed_fields: ['name'] }),
      envelope('customer.created', c3),
      envelope('customer.created', c2),
      envelope('customer.created', c1),
    ]);
  });

  it('sorts oldest first with sorting=created_at and rejects other fields', async () => {
    const res = await list('?sorting=created_at');
    expect(res.body.items.map((e: any) => [e.type, e.data.id])).toEqual([
      ['customer.created', c1.id],
      ['customer.created', c2.id],
      ['customer.created', c3.id],
      ['customer.updated', c1.id],
      ['customer.deleted', c2.id],
    ]);
    const bad = await list('?sorting=type');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: 'Invalid sorting',
      detail: "sorting must be one of created_at (prefix with '-' for descending)",
      code: 'invalid_request',
    });
  });

  it('filters by exact type', async () => {
    const res = await list('?type=customer.created');
    expect(res.body.pagination.total_count).toBe(3);
    expect(res.body.items.map((e: any) => e.data.id)).toEqual([c3.id, c2.id, c1.id]);
    expect((await list('?type=customer')).body.pagination.total_count).toBe(0);
  });

  it('filters by a prefix ending in .*', async () => {
    expect((await list('?type=customer.*')).body.pagination.total_count).toBe(5);
    expect((await list('?type=product.*')).body.pagination.total_count).toBe(0);
  });

  it.each(['customer.%', 'Customer.created', '*', 'customer.*.x'])(
    'rejects the type filter %s with 400',
    async (type) => {
      const res = await list(`?type=${encodeURIComponent(type)}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.detail).toContain('querystring.type');
    },
  );

  it('filters by the record an event is about (object_id), and by a range of creation instants', async () => {
    const about = await list(`?object_id=${c2.id}&sorting=created_at`);
    expect(about.body.items.map((e: any) => e.type)).toEqual(['customer.created', 'customer.deleted']);
    expect((await list(`?object_id=${c2.id}`, B.oat)).body.items).toEqual([]);

    const all = (await list('?sorting=created_at')).body.items as { created_at: string }[];
    // From the third event's instant on (inclusive), and before the last one's (exclusive).
    const from = all[2]!.created_at;
    const until = all[4]!.created_at;
    const ranged = await list(`?sorting=created_at&created_after=${from}&created_before=${until}`);
    expect(ranged.body.items).toEqual(all.filter((e) => e.created_at >= from && e.created_at < until));
    expect(ranged.body.items.length).toBeGreaterThan(0);
    const bad = await list('?created_after=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('querystring.created_after');
  });

  it('paginates with total_count and max_page', async () => {
    const all = (await list()).body.items;
    const p1 = await list('?limit=2');
    const p2 = await list('?limit=2&page=2');
    const p3 = await list('?limit=2&page=3');
    for (const p of [p1, p2, p3]) expect(p.body.pagination).toEqual({ total_count: 5, max_page: 3 });
    expect([...p1.body.items, ...p2.body.items, ...p3.body.items]).toEqual(all);
    expect(p3.body.items).toHaveLength(1);
  });

  it('rejects a limit above 100 with 400', async () => {
    const res = await list('?limit=101');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.detail).toContain('querystring.limit');
  });

  it('writes no event for a create that fails', async () => {
    const duplicate = await api.call('POST', '/api/v1/customers/', { token: T.oat, body: { email: c3.email } });
    expect(duplicate.status).toBe(422);
    const invalid = await api.call('POST', '/api/v1/customers/', {
      token: T.oat,
      body: { email: 'x@example.com', tax_id: '123' },
    });
    expect(invalid.status).toBe(422);
    expect((await list()).body.pagination.total_count).toBe(5);
  });

  it('never shows another organization’s events', async () => {
    const theirs = await list('?limit=100', B.oat);
    expect(theirs.status).toBe(200);
    expect(theirs.body.pagination.total_count).toBe(1);
    expect(theirs.body.items[0]).toMatchObject({ type: 'customer.created', organization_id: B.org.id });
  });
});

describe('GET /api/v1/events/<id>', () => {
  it('returns one event as the list shows it', async () => {
    const [latest] = (await list()).body.items;
    const res = await api.call('GET', `/api/v1/events/${latest.id}`, { token: T.oat });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(latest);
  });

  it.each([
    ['an unknown id', '0190a0a0-0000-7000-8000-000000000000'],
    ['a malformed id', 'nope'],
  ])('answers 404 for %s', async (_label, id) => {
    const res = await api.call('GET', `/api/v1/events/${id}`, { token: T.oat });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Event not found', code: 'not_found' });
  });
});

describe('authentication', () => {
  it('accepts an OAT with events:read or web:read, not one for another resource', async () => {
    expect((await list('', await makeOat(api.orm, T.org.id, ['events:read']))).status).toBe(200);
    expect((await list('', await makeOat(api.orm, T.org.id, ['web:read']))).status).toBe(200);
    const denied = await list('', await makeOat(api.orm, T.org.id, ['customers:read']));
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'Access token lacks required scope',
      detail:
        'This operation takes an organization access token with events:read (Authorization: Bearer), or an API key with the admin scope (X-Service-Api-Key)',
      code: 'forbidden',
    });
  });

  it('needs the admin scope on an API key', async () => {
    const readWrite = await api.call('GET', '/api/v1/events/', { headers: { 'x-service-api-key': T.apiKey } });
    expect(readWrite.status).toBe(403);
    expect(readWrite.body).toEqual({
      error: 'Api key lacks required scope',
      detail:
        'This operation takes an organization access token with events:read (Authorization: Bearer), or an API key with the admin scope (X-Service-Api-Key)',
      code: 'forbidden',
    });
    const admin = await makeApiKey(api.orm, T.org.id, { scopes: ['admin'] });
    const res = await api.call('GET', '/api/v1/events/', { headers: { 'x-service-api-key': admin.key } });
    expect(res.status).toBe(200);
    expect(res.body.pagination.total_count).toBe(5);
  });

  it('answers 401 without a credential', async () => {
    expect((await api.call('GET', '/api/v1/events/')).status).toBe(401);
  });
});
