import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeTenant, unique } from '../helpers/fixtures.ts';
import { expectNothingWritten, type Watched } from '../helpers/unchanged.ts';

let api: TestApi;
let A: Awaited<ReturnType<typeof makeTenant>>;
let B: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  api = await startApi();
  A = await makeTenant(api.orm);
  B = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
});

// Published examples (Receita Federal algorithm), formatted as people type them.
const CPF = { formatted: '529.982.247-25', digits: '52998224725' };
const CPF2 = { formatted: '111.444.777-35', digits: '11144477735' };
const CNPJ = { formatted: '11.222.333/0001-81', digits: '11222333000181' };
const BAD_CPF = '529.982.247-26';

const email = () => `${unique('buyer')}@example.com`;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function create(body: Record<string, unknown>, token = A.oat) {
  return api.call('POST', '/api/v1/customers/', { token, body });
}

async function createOk(body: Record<string, unknown> = {}, token = A.oat) {
  const res = await create({ email: email(), ...body }, token);
  expect(res.status).toBe(201);
  return res.body;
}

async function row(id: string) {
  const rows = await api.orm.em.getConnection().execute<any[]>('select * from customers where id = ?', [id]);
  return rows[0]!;
}

async function eventsFor(customerId: string, type?: string) {
  return api.orm.em
    .getConnection()
    .execute<{ id: string; type: string; organization_id: string; data: any }[]>(
      `select id, type, organization_id, data from events where data->>'id' = ? ${type ? 'and type = ?' : ''} order by created_at, id`,
      type ? [customerId, type] : [customerId],
    );
}

async function countEventsWithEmail(organizationId: string, address: string) {
  const rows = await api.orm.em
    .getConnection()
    .execute<{ n: string }[]>(
      `select count(*)::int as n from events where organization_id = ? and type = 'customer.created' and data->>'email' = ?`,
      [organizationId, address],
    );
  return Number(rows[0]!.n);
}

const fullBody = () => ({
  email: `${unique('Full.Buyer')}@Example.COM`,
  name: 'Maria Silva',
  external_id: unique('ext'),
  billing_name: 'Maria S. Ltda',
  billing_address: {
    line1: 'Rua Augusta, 1500',
    city: 'São Paulo',
    state: 'SP',
    postal_code: '01304-001',
    country: 'br',
  },
  tax_id: { type: 'cnpj', number: CNPJ.formatted },
  user_metadata: { plan: 'gold', seats: 3, dropped: null },
  email_verified: true,
});

describe('POST /api/v1/customers/', () => {
  it('creates a customer and returns the complete record', async () => {
    const body = fullBody();
    const res = await create(body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: body.email.toLowerCase(),
      name: 'Maria Silva',
      external_id: body.external_id,
      billing_name: 'Maria S. Ltda',
      billing_address: {
        line1: 'Rua Augusta, 1500',
        city: 'São Paulo',
        state: 'SP',
        postal_code: '01304-001',
        country: 'BR',
      },
      tax_id: { type: 'cnpj', number: CNPJ.digits },
      user_metadata: { plan: 'gold', seats: 3 },
      email_verified: true,
      avatar_url: null,
      organization_id: A.org.id,
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at,
    });

    const stored = await row(res.body.id);
    expect(stored).toMatchObject({
      organization_id: A.org.id,
      email: body.email.toLowerCase(),
      external_id: body.external_id,
      tax_id: { type: 'cnpj', number: CNPJ.digits },
      user_metadata: { plan: 'gold', seats: 3 },
      email_verified: true,
      deleted_at: null,
    });

    const events = await eventsFor(res.body.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'customer.created', organization_id: A.org.id, data: res.body });
  });

  it('needs only an email; everything else has a default', async () => {
    const address = email();
    const res = await create({ email: address });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: address,
      name: null,
      external_id: null,
      billing_name: null,
      billing_address: null,
      tax_id: null,
      user_metadata: {},
      email_verified: false,
      avatar_url: null,
    });
  });

  it('stores a missing state and postal_code as null', async () => {
    const c = await createOk({ billing_address: { line1: '1 Main St', city: 'Lisbon', country: 'PT' } });
    expect(c.billing_address).toEqual({
      line1: '1 Main St',
      city: 'Lisbon',
      state: null,
      postal_code: null,
      country: 'PT',
    });
  });

  it.each([
    ['CPF as a formatted string', CPF.formatted, { type: 'cpf', number: CPF.digits }],
    ['CPF as bare digits', CPF2.digits, { type: 'cpf', number: CPF2.digits }],
    ['CNPJ as a formatted string', CNPJ.formatted, { type: 'cnpj', number: CNPJ.digits }],
    ['CPF as an object with type', { type: 'cpf', number: CPF.formatted }, { type: 'cpf', number: CPF.digits }],
    ['CNPJ as an object without type', { number: CNPJ.digits }, { type: 'cnpj', number: CNPJ.digits }],
  ])('accepts a valid %s', async (_label, taxId, expected) => {
    const c = await createOk({ tax_id: taxId });
    expect(c.tax_id).toEqual(expected);
  });

  it.each([
    [
      'a CPF with a wrong check digit',
      BAD_CPF,
      'body.tax_id: not a valid CPF (11 digits) or CNPJ (14 digits); the check digits do not match',
    ],
    [
      'a CNPJ with a wrong check digit',
      { type: 'cnpj', number: '11.222.333/0001-82' },
      'body.tax_id: not a valid CPF (11 digits) or CNPJ (14 digits); the check digits do not match',
    ],
    [
      'repeated digits',
      '111.111.111-11',
      'body.tax_id: not a valid CPF (11 digits) or CNPJ (14 digits); the check digits do not match',
    ],
    [
      'a CNPJ labelled cpf',
      { type: 'cpf', number: CNPJ.formatted },
      'body.tax_id: type is cpf but the number is a valid cnpj',
    ],
  ])('rejects %s with 422 invalid_tax_id and creates nothing', async (_label, taxId, detail) => {
    const address = email();
    const res = await create({ email: address, tax_id: taxId });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Invalid tax_id', detail, code: 'invalid_tax_id' });
    const rows = await api.orm.em.getConnection().execute('select 1 from customers where email = ?', [address]);
    expect(rows).toHaveLength(0);
    expect(await countEventsWithEmail(A.org.id, address)).toBe(0);
  });

  it.each([
    ['no email', { name: 'x' }, 'body.email'],
    ['an invalid email', { email: 'not-an-email' }, 'body.email'],
    [
      'a three-letter country',
      { email: 'a@example.com', billing_address: { line1: 'x', city: 'y', country: 'BRA' } },
      'body.billing_address.country',
    ],
    [
      'an address without line1',
      { email: 'a@example.com', billing_address: { city: 'y', country: 'BR' } },
      'body.billing_address.line1',
    ],
    ['an unknown field', { email: 'a@example.com', nickname: 'x' }, 'body.(root)'],
    ['a non-boolean email_verified', { email: 'a@example.com', email_verified: 'yes' }, 'body.email_verified'],
  ])('rejects %s with 400', async (_label, body, field) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Invalid request', code: 'validation_error' });
    expect(res.body.detail).toContain(field);
  });

  it('rejects a duplicate email (any case) with 422 email_taken and writes no event', async () => {
    const address = email();
    await createOk({ email: address });
    const res = await create({ email: address.toUpperCase() });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Email already in use',
      detail: 'Another customer of this organization has this email',
      code: 'email_taken',
    });
    expect(await countEventsWithEmail(A.org.id, address)).toBe(1);
  });

  it('rejects a duplicate external_id with 422 external_id_taken', async () => {
    const externalId = unique('ext');
    await createOk({ external_id: externalId });
    const address = email();
    const res = await create({ email: address, external_id: externalId });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'External id already in use',
      detail: 'Another customer of this organization has this external_id',
      code: 'external_id_taken',
    });
    expect(await countEventsWithEmail(A.org.id, address)).toBe(0);
  });

  it('gives exactly one 201 when the same email is created twice at once', async () => {
    const address = email();
    const results = await Promise.all([
      create({ email: address, name: 'one' }),
      create({ email: address, name: 'two' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(results.find((r) => r.status === 422)!.body.code).toBe('email_taken');
    const rows = await api.orm.em.getConnection().execute('select id from customers where email = ?', [address]);
    expect(rows).toHaveLength(1);
    expect(await countEventsWithEmail(A.org.id, address)).toBe(1);
  });

  it('gives exactly one 201 when the same external_id is created twice at once', async () => {
    const externalId = unique('ext');
    const results = await Promise.all([
      create({ email: email(), external_id: externalId }),
      create({ email: email(), external_id: externalId }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(results.find((r) => r.status === 422)!.body.code).toBe('external_id_taken');
    const rows = await api.orm.em
      .getConnection()
      .execute('select id from customers where external_id = ?', [externalId]);
    expect(rows).toHaveLength(1);
  });

  it('lets another organization use the same email and external_id', async () => {
    const address = email();
    const externalId = unique('ext');
    await createOk({ email: address, external_id: externalId });
    const res = await create({ email: address, external_id: externalId }, B.oat);
    expect(res.status).toBe(201);
    expect(res.body.organization_id).toBe(B.org.id);
  });
});

describe('authentication', () => {
  it('rejects a read-only API key on POST with 403', async () => {
    const { key } = await makeApiKey(api.orm, A.org.id, { scopes: ['read'] });
    const res = await api.call('POST', '/api/v1/customers/', {
      headers: { 'x-service-api-key': key },
      body: { email: email() },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'Api key lacks required scope',
      detail:
        'This operation takes an organization access token with customers:write (Authorization: Bearer), or an API key with the write scope (X-Service-Api-Key)',
      code: 'forbidden',
    });
  });

  it('lets a read-only API key list and read customers but not change them', async () => {
    const c = await createOk({ external_id: unique('ext') });
    const { key } = await makeApiKey(api.orm, A.org.id, { scopes: ['read'] });
    const headers = { 'x-service-api-key': key };
    expect((await api.call('GET', '/api/v1/customers/', { headers })).status).toBe(200);
    expect((await api.call('GET', `/api/v1/customers/${c.id}`, { headers })).status).toBe(200);
    expect((await api.call('GET', `/api/v1/customers/external/${c.external_id}`, { headers })).status).toBe(200);
    // Refused, and nothing written: the customer as it was, no event.
    const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
      api.orm.em.getConnection().execute(query, params);
    const watched: Watched[] = [
      ['select * from customers where id = ?', [c.id]],
      ['select id, type from events where organization_id = ? order by id', [A.org.id]],
    ];
    const patch = () => api.call('PATCH', `/api/v1/customers/${c.id}`, { headers, body: { name: 'x' } });
    expect((await expectNothingWritten(sql, watched, patch)).status).toBe(403);
    const remove = () => api.call('DELETE', `/api/v1/customers/external/${c.external_id}`, { headers });
    expect((await expectNothingWritten(sql, watched, remove)).status).toBe(403);
  });

  it('accepts a write API key in X-Service-Api-Key or as a bearer token', async () => {
    expect(
      (
        await api.call('POST', '/api/v1/customers/', {
          headers: { 'x-service-api-key': A.apiKey },
          body: { email: email() },
        })
      ).status,
    ).toBe(201);
    expect((await create({ email: email() }, A.apiKey)).status).toBe(201);
  });

  it('needs customers:write (or web:write) on an OAT to write, customers:read or web:read to read', async () => {
    const reader = await makeOat(api.orm, A.org.id, ['customers:read']);
    const webReader = await makeOat(api.orm, A.org.id, ['web:read']);
    const writer = await makeOat(api.orm, A.org.id, ['customers:write']);
    const other = await makeOat(api.orm, A.org.id, ['products:write']);
    const denied = await create({ email: email() }, reader);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'Access token lacks required scope',
      detail:
        'This operation takes an organization access token with customers:write (Authorization: Bearer), or an API key with the write scope (X-Service-Api-Key)',
      code: 'forbidden',
    });
    expect((await create({ email: email() }, webReader)).status).toBe(403);
    const c = await createOk({}, writer);
    expect((await api.call('GET', `/api/v1/customers/${c.id}`, { token: reader })).status).toBe(200);
    expect((await api.call('GET', `/api/v1/customers/${c.id}`, { token: webReader })).status).toBe(200);
    expect((await api.call('GET', `/api/v1/customers/${c.id}`, { token: writer })).status).toBe(200);
    expect((await api.call('GET', `/api/v1/customers/${c.id}`, { token: other })).status).toBe(403);
  });

  it('answers 401 without a credential', async () => {
    const res = await api.call('GET', '/api/v1/customers/');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });
});

describe('GET /api/v1/customers/', () => {
  let T: Awaited<ReturnType<typeof makeTenant>>;
  let ana: any, bruno: any, carla: any;

  beforeAll(async () => {
    T = await makeTenant(api.orm);
    ana = await createOk({ email: 'ana.souza@example.com', name: 'Ana Souza', external_id: 'crm-1' }, T.oat);
    bruno = await createOk({ email: 'bruno@acme.io', name: 'Bruno Lima', external_id: 'crm-2' }, T.oat);
    carla = await createOk({ email: 'carla_dias@example.com', name: 'Carla Dias' }, T.oat);
    const gone = await createOk({ email: 'gone@example.com', name: 'Ana Gone' }, T.oat);
    expect((await api.call('DELETE', `/api/v1/customers/${gone.id}`, { token: T.oat })).status).toBe(204);
  });

  const list = (qs = '') => api.call('GET', `/api/v1/customers/${qs}`, { token: T.oat });

  it('lists the organization’s live customers, newest first', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [carla, bruno, ana], pagination: { total_count: 3, max_page: 1 } });
  });

  it('filters by exact email, ignoring case', async () => {
    expect((await list('?email=ANA.SOUZA@example.com')).body.items).toEqual([ana]);
    expect((await list('?email=ana.souza')).body.items).toEqual([]);
  });

  it('filters by external_id', async () => {
    expect((await list('?external_id=crm-2')).body).toEqual({
      items: [bruno],
      pagination: { total_count: 1, max_page: 1 },
    });
    expect((await list('?external_id=crm')).body.items).toEqual([]);
  });

  it('searches email and name with query, ignoring case, wildcards taken literally', async () => {
    expect((await list('?query=SOUZA')).body.items).toEqual([ana]);
    expect((await list('?query=acme')).body.items).toEqual([bruno]);
    expect((await list('?query=example.com&sorting=email')).body.items).toEqual([ana, carla]);
    expect((await list('?query=_')).body.items).toEqual([carla]);
    expect((await list(`?query=${encodeURIComponent('%')}`)).body.items).toEqual([]);
    expect((await list('?query=gone')).body.items).toEqual([]);
  });

  it('sorts by created_at, email and name in both directions', async () => {
    expect((await list('?sorting=created_at')).body.items).toEqual([ana, bruno, carla]);
    expect((await list('?sorting=email')).body.items).toEqual([ana, bruno, carla]);
    expect((await list('?sorting=-name')).body.items).toEqual([carla, bruno, ana]);
  });

  it('rejects an unknown sorting field with 400', async () => {
    const res = await list('?sorting=tax_id');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Invalid sorting',
      detail: "sorting must be one of created_at, email, name (prefix with '-' for descending)",
      code: 'invalid_request',
    });
  });

  it('paginates', async () => {
    expect((await list('?limit=2')).body).toEqual({
      items: [carla, bruno],
      pagination: { total_count: 3, max_page: 2 },
    });
    expect((await list('?limit=2&page=2')).body).toEqual({ items: [ana], pagination: { total_count: 3, max_page: 2 } });
    expect((await list('?limit=2&page=3')).body).toEqual({ items: [], pagination: { total_count: 3, max_page: 2 } });
  });

  it('rejects a limit above 100 and a page below 1 with 400', async () => {
    for (const qs of ['?limit=101', '?page=0', '?limit=0']) {
      const res = await list(qs);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
  });
});

describe('GET /api/v1/customers/<id> and /external/<external_id>', () => {
  it('returns the same complete record both ways', async () => {
    const created = (await create(fullBody())).body;
    const byId = await api.call('GET', `/api/v1/customers/${created.id}`, { token: A.oat });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(created);
    const byExternal = await api.call('GET', `/api/v1/customers/external/${encodeURIComponent(created.external_id)}`, {
      token: A.apiKey,
    });
    expect(byExternal.status).toBe(200);
    expect(byExternal.body).toEqual(created);
  });

  it.each([
    ['an unknown id', '/api/v1/customers/0190a0a0-0000-7000-8000-000000000000'],
    ['a malformed id', '/api/v1/customers/not-a-uuid'],
    ['an unknown external_id', '/api/v1/customers/external/nobody'],
  ])('answers 404 for %s', async (_label, url) => {
    const res = await api.call('GET', url, { token: A.oat });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Customer not found', code: 'not_found' });
  });
});

describe.each([
  ['by id', (c: any) => `/api/v1/customers/${c.id}`],
  ['by external_id', (c: any) => `/api/v1/customers/external/${encodeURIComponent(c.external_id)}`],
])('PATCH %s', (_label, urlOf) => {
  const patch = (c: any, body: unknown, token = A.oat) => api.call('PATCH', urlOf(c), { token, body });

  it('changes only the sent fields: address replaced whole, metadata merged, updated_at moved', async () => {
    const before = (await create(fullBody())).body;
    const res = await patch(before, {
      billing_address: { line1: 'Av. Paulista, 1000', city: 'São Paulo', country: 'BR' },
      user_metadata: { seats: 5, tier: 'b' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      // state and postal_code of the old address are gone: the address is replaced, not merged.
      billing_address: {
        line1: 'Av. Paulista, 1000',
        city: 'São Paulo',
        state: null,
        postal_code: null,
        country: 'BR',
      },
      user_metadata: { plan: 'gold', seats: 5, tier: 'b' },
      updated_at: expect.stringMatching(ISO),
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));

    expect((await api.call('GET', `/api/v1/customers/${before.id}`, { token: A.oat })).body).toEqual(res.body);
    const stored = await row(before.id);
    expect(stored.billing_address).toEqual({
      line1: 'Av. Paulista, 1000',
      city: 'São Paulo',
      state: null,
      postal_code: null,
      country: 'BR',
    });
    expect(stored.user_metadata).toEqual({ plan: 'gold', seats: 5, tier: 'b' });
    expect(new Date(stored.updated_at).toISOString()).toBe(res.body.updated_at);

    const updates = await eventsFor(before.id, 'customer.updated');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.data).toEqual({ ...res.body, changed_fields: ['billing_address', 'user_metadata'] });
  });

  it('changes each scalar field on its own', async () => {
    const before = (await create(fullBody())).body;
    const res = await patch(before, {
      name: 'Maria Souza',
      billing_name: 'MS',
      email_verified: false,
      tax_id: { type: 'cpf', number: CPF.formatted },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      name: 'Maria Souza',
      billing_name: 'MS',
      email_verified: false,
      tax_id: { type: 'cpf', number: CPF.digits },
      updated_at: expect.stringMatching(ISO),
    });
  });

  it('clears nullable fields with null and removes metadata keys sent as null', async () => {
    const before = (await create(fullBody())).body;
    const res = await patch(before, {
      name: null,
      billing_name: null,
      billing_address: null,
      tax_id: null,
      user_metadata: { plan: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      name: null,
      billing_name: null,
      billing_address: null,
      tax_id: null,
      user_metadata: { seats: 3 },
      updated_at: expect.stringMatching(ISO),
    });
    const stored = await row(before.id);
    expect(stored).toMatchObject({ name: null, billing_address: null, tax_id: null, user_metadata: { seats: 3 } });
  });

  it('changes the email, lower-cased, and resets email_verified', async () => {
    const before = (await create(fullBody())).body;
    const next = email();
    const res = await patch(before, { email: next.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: next, email_verified: false });
    const updates = await eventsFor(before.id, 'customer.updated');
    expect(updates.at(-1)!.data.changed_fields).toEqual(['email', 'email_verified']);
  });

  it('rejects an email of another customer with 422 email_taken and changes nothing', async () => {
    const other = await createOk();
    const before = (await create(fullBody())).body;
    const res = await patch(before, { email: other.email, name: 'changed' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('email_taken');
    expect((await api.call('GET', `/api/v1/customers/${before.id}`, { token: A.oat })).body).toEqual(before);
    expect(await eventsFor(before.id, 'customer.updated')).toHaveLength(0);
  });

  it.each([
    [
      'a CPF with a wrong check digit',
      { type: 'cpf', number: BAD_CPF },
      'body.tax_id: not a valid CPF (11 digits) or CNPJ (14 digits); the check digits do not match',
    ],
    [
      'a CPF labelled cnpj',
      { type: 'cnpj', number: CPF.digits },
      'body.tax_id: type is cnpj but the number is a valid cpf',
    ],
    [
      'a CNPJ labelled cpf',
      { type: 'cpf', number: CNPJ.digits },
      'body.tax_id: type is cpf but the number is a valid cnpj',
    ],
  ])('rejects %s, well-formed, with 422 invalid_tax_id and changes nothing', async (_label, taxId, detail) => {
    const before = (await create(fullBody())).body;
    const res = await patch(before, { name: 'changed', tax_id: taxId });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Invalid tax_id', detail, code: 'invalid_tax_id' });
    expect((await api.call('GET', `/api/v1/customers/${before.id}`, { token: A.oat })).body).toEqual(before);
  });

  it('rejects fields outside the update table, such as external_id, with 400', async () => {
    const before = (await create(fullBody())).body;
    const res = await patch(before, { external_id: 'new-id' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    // user_metadata is never null: keys are removed one by one.
    const cleared = await patch(before, { user_metadata: null });
    expect(cleared.status).toBe(400);
    expect(cleared.body.detail).toContain('body.user_metadata');
    expect((await api.call('GET', `/api/v1/customers/${before.id}`, { token: A.oat })).body).toEqual(before);
  });

  it('leaves the record, updated_at included, alone when nothing changes, and writes no event', async () => {
    const before = (await create(fullBody())).body;
    for (const body of [{}, { name: before.name, user_metadata: { plan: 'gold' } }]) {
      const res = await patch(before, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(before);
    }
    expect(await eventsFor(before.id, 'customer.updated')).toHaveLength(0);
  });

  it('keeps both of two concurrent metadata merges', async () => {
    const before = (await create(fullBody())).body;
    const results = await Promise.all([
      patch(before, { user_metadata: { x: 1 } }),
      patch(before, { user_metadata: { y: 2 } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect((await row(before.id)).user_metadata).toEqual({ plan: 'gold', seats: 3, x: 1, y: 2 });
  });

  it('answers 404 for an unknown customer', async () => {
    const res = await patch({ id: '0190a0a0-0000-7000-8000-000000000000', external_id: 'nobody' }, { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Customer not found', code: 'not_found' });
  });
});

describe.each([
  ['by id', (c: any) => `/api/v1/customers/${c.id}`],
  ['by external_id', (c: any) => `/api/v1/customers/external/${encodeURIComponent(c.external_id)}`],
])('DELETE %s', (_label, urlOf) => {
  it('soft-deletes: 204, then 404 everywhere, email and external_id free again', async () => {
    const c = (await create(fullBody())).body;
    const res = await api.call('DELETE', urlOf(c), { token: A.oat });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');

    for (const url of [
      `/api/v1/customers/${c.id}`,
      `/api/v1/customers/external/${encodeURIComponent(c.external_id)}`,
    ]) {
      expect((await api.call('GET', url, { token: A.oat })).status).toBe(404);
      expect((await api.call('PATCH', url, { token: A.oat, body: { name: 'x' } })).status).toBe(404);
      expect((await api.call('DELETE', url, { token: A.oat })).status).toBe(404);
    }
    const listed = await api.call('GET', `/api/v1/customers/?external_id=${encodeURIComponent(c.external_id)}`, {
      token: A.oat,
    });
    expect(listed.body.pagination.total_count).toBe(0);

    const stored = await row(c.id);
    expect(stored.deleted_at).not.toBeNull();
    expect(new Date(stored.deleted_at).getTime()).toBeGreaterThan(Date.parse(c.created_at));
    const deleted = await eventsFor(c.id, 'customer.deleted');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.data).toMatchObject({ id: c.id, email: c.email, external_id: c.external_id });

    const again = await create({ email: c.email, external_id: c.external_id });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(c.id);
    expect(
      (await api.call('GET', `/api/v1/customers/external/${encodeURIComponent(c.external_id)}`, { token: A.oat })).body
        .id,
    ).toBe(again.body.id);
  });
});

describe('tenant isolation', () => {
  let victim: any;
  beforeAll(async () => {
    victim = (await create(fullBody())).body;
  });

  const credentials = () =>
    [
      ['OAT', { token: B.oat }],
      ['API key', { headers: { 'x-service-api-key': B.apiKey } }],
    ] as const;

  it('never lists another organization’s customers', async () => {
    for (const [, credential] of credentials()) {
      for (const qs of [
        '',
        `?email=${encodeURIComponent(victim.email)}`,
        `?external_id=${encodeURIComponent(victim.external_id)}`,
        '?limit=100',
      ]) {
        const res = await api.call('GET', `/api/v1/customers/${qs}`, credential);
        expect(res.status).toBe(200);
        expect(res.body.items.map((c: any) => c.id)).not.toContain(victim.id);
        expect(res.body.items.every((c: any) => c.organization_id === B.org.id)).toBe(true);
      }
      const byEmail = await api.call('GET', `/api/v1/customers/?email=${encodeURIComponent(victim.email)}`, credential);
      expect(byEmail.body.pagination.total_count).toBe(0);
    }
  });
});
