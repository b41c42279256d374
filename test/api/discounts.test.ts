import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { redeemDiscount } from '../../db/catalog/discount-redemptions.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeTenant, unique } from '../helpers/fixtures.ts';

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

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sql = <T = any>(query: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(query, params);
const count = async (query: string, params: unknown[] = []) => (await sql<{ n: number }>(query, params))[0]!.n;

/** A product with one active one-time BRL price as its default, written straight to the database. */
async function makeProduct(
  organizationId: string,
  unitAmount = 10_000,
): Promise<{ productId: string; priceId: string }> {
  const productId = uuidv7();
  const priceId = uuidv7();
  await sql(
    `insert into products (id, organization_id, name, metadata, is_archived, is_tax_applicable, default_price_id, created_at)
     values (?, ?, ?, '{}', false, true, null, now())`,
    [productId, organizationId, unique('product')],
  );
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, active, metadata, created_at)
     values (?, ?, ?, 'one_time', 'brl', ?, true, '{}', now())`,
    [priceId, productId, organizationId, unitAmount],
  );
  await sql('update products set default_price_id = ? where id = ?', [priceId, productId]);
  return { productId, priceId };
}

const create = (body: Record<string, unknown>, token = A.oat) =>
  api.call('POST', '/api/v1/discounts/', { token, body });

async function createOk(body: Record<string, unknown> = {}, token = A.oat) {
  const res = await create({ name: unique('discount'), type: 'percentage', basis_points: 1000, ...body }, token);
  expect(res.status).toBe(201);
  return res.body;
}

const events = (discountId: string) =>
  sql<{ type: string; organization_id: string; data: any }>(
    `select type, organization_id, data from events where data->>'id' = ? order by created_at, id`,
    [discountId],
  );

describe('POST /api/v1/discounts/', () => {
  it('creates a percentage discount and returns the complete record', async () => {
    const { productId } = await makeProduct(A.org.id);
    const code = unique('SUMMER').toUpperCase();
    const res = await create({
      name: 'Summer sale',
      code,
      type: 'percentage',
      basis_points: 2500,
      duration: 'repeating',
      duration_in_months: 3,
      starts_at: '2025-01-01T00:00:00Z',
      ends_at: '2030-01-01T00:00:00.000-03:00',
      max_redemptions: 50,
      product_ids: [productId.toUpperCase()],
      metadata: { campaign: 'summer' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      organization_id: A.org.id,
      name: 'Summer sale',
      code,
      type: 'percentage',
      basis_points: 2500,
      amount: null,
      currency: null,
      duration: 'repeating',
      duration_in_months: 3,
      starts_at: '2025-01-01T00:00:00.000Z',
      ends_at: '2030-01-01T03:00:00.000Z',
      max_redemptions: 50,
      redemptions_count: 0,
      product_ids: [productId],
      metadata: { campaign: 'summer' },
      created_at: expect.stringMatching(ISO),
      modified_at: null,
    });
    const [row] = await sql('select * from discounts where id = ?', [res.body.id]);
    expect(row).toMatchObject({
      organization_id: A.org.id,
      type: 'percentage',
      basis_points: 2500,
      amount: null,
      redemptions_count: 0,
      deleted_at: null,
    });
    const evts = await events(res.body.id);
    expect(evts).toEqual([{ type: 'discount.created', organization_id: A.org.id, data: res.body }]);
  });

  it('creates a fixed discount with its defaults (duration once, no code, no window, no limit)', async () => {
    const res = await create({ name: 'Ten off', type: 'fixed', amount: 1000, currency: 'brl' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Ten off',
      code: null,
      type: 'fixed',
      basis_points: null,
      amount: 1000,
      currency: 'brl',
      duration: 'once',
      duration_in_months: null,
      starts_at: null,
      ends_at: null,
      max_redemptions: null,
      product_ids: [],
      metadata: {},
    });
  });

  it.each([
    [
      'percentage without basis_points',
      { type: 'percentage' },
      'body.basis_points: required for a percentage discount',
    ],
    ['basis_points 0', { type: 'percentage', basis_points: 0 }, 'body.basis_points'],
    ['basis_points above 10000', { type: 'percentage', basis_points: 10_001 }, 'body.basis_points'],
    ['fractional basis_points', { type: 'percentage', basis_points: 12.5 }, 'body.basis_points'],
    [
      'percentage with amount',
      { type: 'percentage', basis_points: 10, amount: 5 },
      'body.amount: only for a fixed discount',
    ],
    ['fixed without amount', { type: 'fixed', currency: 'brl' }, 'body.amount: required for a fixed discount'],
    ['fixed without currency', { type: 'fixed', amount: 100 }, 'body.currency: required for a fixed discount'],
    ['fixed amount 0', { type: 'fixed', amount: 0, currency: 'brl' }, 'body.amount'],
    ['negative amount', { type: 'fixed', amount: -5, currency: 'brl' }, 'body.amount'],
    ['upper-case currency', { type: 'fixed', amount: 100, currency: 'BRL' }, 'body.currency'],
    ['fixed with basis_points', { type: 'fixed', amount: 100, currency: 'brl', basis_points: 5 }, 'body.basis_points'],
    ['unknown type', { type: 'bogus', basis_points: 5 }, 'body.type'],
    [
      'repeating without duration_in_months',
      { type: 'percentage', basis_points: 10, duration: 'repeating' },
      'body.duration_in_months: required when duration is repeating',
    ],
    [
      'duration_in_months with once',
      { type: 'percentage', basis_points: 10, duration: 'once', duration_in_months: 2 },
      'body.duration_in_months: only when duration is repeating',
    ],
    [
      'fixed, repeating, without duration_in_months',
      { type: 'fixed', amount: 100, currency: 'brl', duration: 'repeating' },
      'body.duration_in_months: required when duration is repeating',
    ],
    [
      'duration_in_months with forever',
      { type: 'fixed', amount: 100, currency: 'brl', duration: 'forever', duration_in_months: 2 },
      'body.duration_in_months: only when duration is repeating',
    ],
    [
      'duration_in_months without a duration (once)',
      { type: 'percentage', basis_points: 10, duration_in_months: 2 },
      'body.duration_in_months: only when duration is repeating',
    ],
    ['an unknown duration', { type: 'percentage', basis_points: 10, duration: 'weekly' }, 'body.duration'],
    ['malformed starts_at', { type: 'percentage', basis_points: 10, starts_at: 'tomorrow' }, 'body.starts_at'],
    ['max_redemptions 0', { type: 'percentage', basis_points: 10, max_redemptions: 0 }, 'body.max_redemptions'],
    ['code with spaces', { type: 'percentage', basis_points: 10, code: 'TWO WORDS' }, 'body.code'],
    ['unknown field', { type: 'percentage', basis_points: 10, colour: 'red' }, 'colour'],
  ])('400 for %s', async (_label, body, detail) => {
    const res = await create({ name: 'x', ...body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Invalid request', code: 'validation_error' });
    expect(res.body.detail).toContain(detail);
  });

  it.each([
    ['before starts_at', '2025-01-01T00:00:00Z'],
    ['equal to starts_at', '2025-02-01T00:00:00Z'],
    ['equal to starts_at in another offset', '2025-01-31T21:00:00-03:00'],
  ])('422 invalid_ends_at for a well-formed ends_at %s, and creates nothing', async (_label, endsAt) => {
    const name = unique('window');
    const res = await create({
      name,
      type: 'percentage',
      basis_points: 10,
      starts_at: '2025-02-01T00:00:00Z',
      ends_at: endsAt,
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'ends_at must be after starts_at',
      detail: 'body.ends_at: must be after starts_at',
      code: 'invalid_ends_at',
    });
    expect(await count('select count(*)::int as n from discounts where name = ?', [name])).toBe(0);
  });

  it('accepts every variant of type and duration the document states', async () => {
    for (const body of [
      { type: 'percentage', basis_points: 10 },
      { type: 'percentage', basis_points: 10, duration: 'forever' },
      { type: 'percentage', basis_points: 10, duration: 'repeating', duration_in_months: 3 },
      { type: 'fixed', amount: 100, currency: 'brl', duration: 'once' },
      { type: 'fixed', amount: 100, currency: 'brl', duration: 'repeating', duration_in_months: 12 },
    ]) {
      const res = await create({ name: unique('variant'), ...body });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ ...body, duration: body.duration ?? 'once' });
    }
  });

  it('400 without a name', async () => {
    const res = await create({ type: 'percentage', basis_points: 10 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('body.name');
  });

  it('422 code_taken for a code already used in the organization, whatever its case', async () => {
    const code = unique('promo');
    await createOk({ code: code.toUpperCase() });
    const res = await create({ name: 'again', type: 'percentage', basis_points: 5, code: code.toLowerCase() });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Code already in use',
      detail: 'Another discount of this organization has this code',
      code: 'code_taken',
    });
    // Another organization may use the same code.
    await createOk({ code }, B.oat);
  });

  it('gives one success and 422s when the same code is created concurrently', async () => {
    const code = unique('race');
    const results = await Promise.all(
      Array.from({ length: 6 }, () => create({ name: 'race', type: 'percentage', basis_points: 5, code })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
    const n = await count('select count(*)::int as n from discounts where code = ?', [code]);
    expect(n).toBe(1);
  });

  it('422 invalid_product for a product of another organization or an unknown product', async () => {
    const own = await makeProduct(A.org.id);
    const foreign = await makeProduct(B.org.id);
    const unknown = uuidv7();
    const res = await create({
      name: 'x',
      type: 'percentage',
      basis_points: 10,
      product_ids: [own.productId, foreign.productId, unknown],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Product not found',
      detail: `product_ids: ${foreign.productId}, ${unknown}`,
      code: 'invalid_product',
    });
    const n = await count('select count(*)::int as n from discounts where ? = any(product_ids)', [own.productId]);
    expect(n).toBe(0);
  });
});

describe('GET /api/v1/discounts/:id', () => {
  it('returns the discount', async () => {
    const created = await createOk();
    const res = await api.call('GET', `/api/v1/discounts/${created.id}`, { token: A.oat });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  it('404 for an unknown or malformed id', async () => {
    for (const id of [uuidv7(), 'not-a-uuid']) {
      const res = await api.call('GET', `/api/v1/discounts/${id}`, { token: A.oat });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Discount not found', code: 'not_found' });
    }
  });
});

describe('GET /api/v1/discounts/', () => {
  it("lists the organization's live discounts, newest first, with filters and sorting", async () => {
    const T = await makeTenant(api.orm);
    const tag = unique('x');
    const alpha = await createOk({ name: `Alpha ${tag}`, code: `ALPHA-${tag}` }, T.oat);
    const beta = await createOk({ name: `Beta ${tag}`, code: `beta-${tag}` }, T.oat);
    const gamma = await createOk({ name: `Gamma ${tag}` }, T.oat);
    const gone = await createOk({ name: `Deleted ${tag}` }, T.oat);
    expect((await api.call('DELETE', `/api/v1/discounts/${gone.id}`, { token: T.oat })).status).toBe(204);

    const all = await api.call('GET', '/api/v1/discounts/', { token: T.oat });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ items: [gamma, beta, alpha], pagination: { total_count: 3, max_page: 1 } });

    const byName = await api.call('GET', '/api/v1/discounts/?sorting=name', { token: T.oat });
    expect(byName.body.items.map((d: any) => d.id)).toEqual([alpha.id, beta.id, gamma.id]);
    const byNameDesc = await api.call('GET', '/api/v1/discounts/?sorting=-name', { token: T.oat });
    expect(byNameDesc.body.items.map((d: any) => d.id)).toEqual([gamma.id, beta.id, alpha.id]);
    const oldest = await api.call('GET', '/api/v1/discounts/?sorting=created_at&limit=2&page=2', { token: T.oat });
    expect(oldest.body).toEqual({ items: [gamma], pagination: { total_count: 3, max_page: 2 } });

    const byCode = await api.call('GET', `/api/v1/discounts/?code=BETA-${tag.toUpperCase()}`, { token: T.oat });
    expect(byCode.body.items).toEqual([beta]);
    const partialCode = await api.call('GET', `/api/v1/discounts/?code=beta`, { token: T.oat });
    expect(partialCode.body.items).toEqual([]);

    const query = await api.call('GET', `/api/v1/discounts/?query=alpha-${tag}`, { token: T.oat });
    expect(query.body.items).toEqual([alpha]);
    const queryName = await api.call('GET', `/api/v1/discounts/?query=GAMMA`, { token: T.oat });
    expect(queryName.body.items).toEqual([gamma]);
    const wildcard = await api.call('GET', `/api/v1/discounts/?query=%25`, { token: T.oat });
    expect(wildcard.body.items).toEqual([]);

    // Another organization sees none of them.
    const other = await api.call('GET', `/api/v1/discounts/?query=${tag}`, { token: B.oat });
    expect(other.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 1 } });
  });

  it('400 for an unknown sorting field or a limit above 100', async () => {
    expect((await api.call('GET', '/api/v1/discounts/?sorting=amount', { token: A.oat })).status).toBe(400);
    expect((await api.call('GET', '/api/v1/discounts/?limit=101', { token: A.oat })).status).toBe(400);
  });
});

describe('PATCH /api/v1/discounts/:id', () => {
  it('updates the mutable fields and records discount.updated', async () => {
    const created = await createOk({ starts_at: '2025-01-01T00:00:00Z', metadata: { a: 1 } });
    const { productId } = await makeProduct(A.org.id);
    const code = unique('NEW');
    const res = await api.call('PATCH', `/api/v1/discounts/${created.id}`, {
      token: A.oat,
      body: {
        name: 'Renamed',
        code,
        ends_at: '2031-05-01T12:00:00Z',
        max_redemptions: 7,
        product_ids: [productId],
        metadata: { b: 2 },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created,
      name: 'Renamed',
      code,
      ends_at: '2031-05-01T12:00:00.000Z',
      max_redemptions: 7,
      product_ids: [productId],
      metadata: { b: 2 },
      modified_at: expect.stringMatching(ISO),
    });
    const evts = await events(created.id);
    expect(evts.map((e) => e.type)).toEqual(['discount.created', 'discount.updated']);
    expect(evts[1]!.data).toEqual(res.body);

    // null clears; nothing else moves.
    const cleared = await api.call('PATCH', `/api/v1/discounts/${created.id}`, {
      token: A.oat,
      body: { code: null, ends_at: null, max_redemptions: null },
    });
    expect(cleared.body).toMatchObject({ code: null, ends_at: null, max_redemptions: null, name: 'Renamed' });
  });

  it('records no event for a request that changes nothing', async () => {
    const created = await createOk({ name: 'Same' });
    const res = await api.call('PATCH', `/api/v1/discounts/${created.id}`, { token: A.oat, body: { name: 'Same' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    expect((await events(created.id)).map((e) => e.type)).toEqual(['discount.created']);
  });

  it.each([
    ['type', { type: 'fixed' }],
    ['basis_points', { basis_points: 5000 }],
    ['amount', { amount: 100 }],
    ['currency', { currency: 'brl' }],
    ['duration', { duration: 'forever' }],
    ['duration_in_months', { duration_in_months: 3 }],
    ['starts_at', { starts_at: '2025-01-01T00:00:00Z' }],
  ])('400: %s is immutable', async (field, body) => {
    const created = await createOk();
    const res = await api.call('PATCH', `/api/v1/discounts/${created.id}`, { token: A.oat, body });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(`body.${field}: ${field} cannot be changed after creation`);
    const [row] = await sql('select type, basis_points, modified_at from discounts where id = ?', [created.id]);
    expect(row).toEqual({ type: 'percentage', basis_points: 1000, modified_at: null });
  });

  it('422 invalid_ends_at when the new ends_at is not after the stored starts_at, and changes nothing', async () => {
    const created = await createOk({ starts_at: '2025-06-01T00:00:00Z' });
    const res = await api.call('PATCH', `/api/v1/discounts/${created.id}`, {
      token: A.oat,
      body: { ends_at: '2025-05-01T00:00:00Z' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'ends_at must be after starts_at',
      detail: 'body.ends_at: must be after starts_at',
      code: 'invalid_ends_at',
    });
    const [row] = await sql('select ends_at, modified_at from discounts where id = ?', [created.id]);
    expect(row).toEqual({ ends_at: null, modified_at: null });
  });

  it('422 when max_redemptions would go below redemptions_count', async () => {
    const created = await createOk({ max_redemptions: 10 });
    await sql('update discounts set redemptions_count = 4 where id = ?', [created.id]);
    const below = await api.call('PATCH', `/api/v1/discounts/${created.id}`, {
      token: A.oat,
      body: { max_redemptions: 3 },
    });
    expect(below.status).toBe(422);
    expect(below.body).toEqual({
      error: 'max_redemptions cannot be lower than redemptions_count',
      detail: 'The discount was already redeemed 4 times',
      code: 'max_redemptions_below_redemptions',
    });
    const equal = await api.call('PATCH', `/api/v1/discounts/${created.id}`, {
      token: A.oat,
      body: { max_redemptions: 4 },
    });
    expect(equal.status).toBe(200);
    expect(equal.body).toMatchObject({ max_redemptions: 4, redemptions_count: 4 });
  });

  it("422 code_taken when renaming onto another discount's code", async () => {
    const code = unique('TAKEN');
    await createOk({ code });
    const other = await createOk();
    const res = await api.call('PATCH', `/api/v1/discounts/${other.id}`, {
      token: A.oat,
      body: { code: code.toLowerCase() },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('code_taken');
  });

  it('422 invalid_product for a product of another organization', async () => {
    const created = await createOk();
    const foreign = await makeProduct(B.org.id);
    const res = await api.call('PATCH', `/api/v1/discounts/${created.id}`, {
      token: A.oat,
      body: { product_ids: [foreign.productId] },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('invalid_product');
  });
});

describe('DELETE /api/v1/discounts/:id', () => {
  it('soft-deletes: 204, then 404, the code is free again, discount.deleted recorded', async () => {
    const code = unique('BYE');
    const created = await createOk({ code });
    const res = await api.call('DELETE', `/api/v1/discounts/${created.id}`, { token: A.oat });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');

    const [row] = await sql('select deleted_at, modified_at from discounts where id = ?', [created.id]);
    expect(row.deleted_at).not.toBeNull();
    expect(row.modified_at).toEqual(row.deleted_at);
    expect((await events(created.id)).map((e) => e.type)).toEqual(['discount.created', 'discount.deleted']);

    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const again = await api.call(method, `/api/v1/discounts/${created.id}`, { token: A.oat, body });
      expect(again.status).toBe(404);
    }
    await createOk({ code });
  });
});

describe('auth and tenancy', () => {
  it('OAT scopes: discounts:read reads only; discounts:write and web:write write; web:read reads', async () => {
    const created = await createOk();
    const reader = await makeOat(api.orm, A.org.id, ['discounts:read']);
    const writer = await makeOat(api.orm, A.org.id, ['discounts:write']);
    const webRead = await makeOat(api.orm, A.org.id, ['web:read']);
    const other = await makeOat(api.orm, A.org.id, ['products:write']);

    expect((await api.call('GET', `/api/v1/discounts/${created.id}`, { token: reader })).status).toBe(200);
    expect((await api.call('GET', '/api/v1/discounts/', { token: webRead })).status).toBe(200);
    expect((await api.call('GET', `/api/v1/discounts/${created.id}`, { token: writer })).status).toBe(200);
    const denied = await create({ name: 'x', type: 'percentage', basis_points: 1 }, reader);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'Access token lacks required scope', code: 'forbidden' });
    expect((await create({ name: 'x', type: 'percentage', basis_points: 1 }, webRead)).status).toBe(403);
    expect((await api.call('GET', '/api/v1/discounts/', { token: other })).status).toBe(403);
    expect((await create({ name: 'x', type: 'percentage', basis_points: 1 }, writer)).status).toBe(201);
  });

  it('API keys: discounts need the admin scope, which read/write keys lack', async () => {
    const { key } = await makeApiKey(api.orm, A.org.id, { scopes: ['read', 'write'] });
    const headers = { 'x-service-api-key': key };
    const list = await api.call('GET', '/api/v1/discounts/', { headers });
    expect(list.status).toBe(403);
    expect(list.body).toMatchObject({ error: 'Api key lacks required scope' });
    const post = await api.call('POST', '/api/v1/discounts/', {
      headers,
      body: { name: 'x', type: 'percentage', basis_points: 1 },
    });
    expect(post.status).toBe(403);
    const admin = await makeApiKey(api.orm, A.org.id, { scopes: ['admin'] });
    expect((await api.call('GET', '/api/v1/discounts/', { headers: { 'x-service-api-key': admin.key } })).status).toBe(
      200,
    );
  });

  it('401 without a credential', async () => {
    const res = await api.call('GET', '/api/v1/discounts/');
    expect(res.status).toBe(401);
  });
});

describe('redeemDiscount', () => {
  /** A minimal open checkout row, enough for a redemption to reference. */
  async function makeCheckout(organizationId: string, product: { productId: string; priceId: string }) {
    const id = uuidv7();
    await sql(
      `insert into checkouts (id, organization_id, status, client_secret, workflow_id, product_id, product_price_id,
         currency, subtotal_amount, amount, expires_at, created_at, updated_at)
       values (?, ?, 'open', ?, ?, ?, ?, 'BRL', 10000, 10000, now() + interval '1 hour', now(), now())`,
      [id, organizationId, unique('secret'), `checkout:${id}`, product.productId, product.priceId],
    );
    return id;
  }

  const redeemInOwnTransaction = (discountId: string, checkoutId: string) =>
    api.orm.em.fork().transactional((tx) => redeemDiscount(tx, discountId, checkoutId));

  const state = async (discountId: string) => {
    const [d] = await sql<{ redemptions_count: number }>('select redemptions_count from discounts where id = ?', [
      discountId,
    ]);
    const n = await count('select count(*)::int as n from discount_redemptions where discount_id = ?', [discountId]);
    return { count: d!.redemptions_count, rows: n };
  };

  it('10 concurrent redemptions of a max_redemptions=3 discount: exactly 3 are redeemed', async () => {
    const discount = await createOk({ max_redemptions: 3 });
    const product = await makeProduct(A.org.id);
    const checkouts = await Promise.all(Array.from({ length: 10 }, () => makeCheckout(A.org.id, product)));
    const outcomes = await Promise.all(checkouts.map((c) => redeemInOwnTransaction(discount.id, c)));
    expect(outcomes.filter((o) => o === 'redeemed')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'exhausted')).toHaveLength(7);
    expect(await state(discount.id)).toEqual({ count: 3, rows: 3 });
    const read = await api.call('GET', `/api/v1/discounts/${discount.id}`, { token: A.oat });
    expect(read.body).toMatchObject({ redemptions_count: 3, max_redemptions: 3 });
  });

  it('the same checkout redeeming twice, one after the other or concurrently, is counted once', async () => {
    const discount = await createOk();
    const product = await makeProduct(A.org.id);
    const checkout = await makeCheckout(A.org.id, product);
    expect(await redeemInOwnTransaction(discount.id, checkout)).toBe('redeemed');
    expect(await redeemInOwnTransaction(discount.id, checkout)).toBe('already_redeemed');
    expect(await state(discount.id)).toEqual({ count: 1, rows: 1 });

    const racing = await makeCheckout(A.org.id, product);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => redeemInOwnTransaction(discount.id, racing)));
    expect(outcomes.sort()).toEqual([
      'already_redeemed',
      'already_redeemed',
      'already_redeemed',
      'already_redeemed',
      'redeemed',
    ]);
    expect(await state(discount.id)).toEqual({ count: 2, rows: 2 });
  });

  it('a deleted discount is exhausted and leaves no redemption behind', async () => {
    const discount = await createOk();
    const product = await makeProduct(A.org.id);
    const checkout = await makeCheckout(A.org.id, product);
    expect((await api.call('DELETE', `/api/v1/discounts/${discount.id}`, { token: A.oat })).status).toBe(204);
    expect(await redeemInOwnTransaction(discount.id, checkout)).toBe('exhausted');
    expect(await state(discount.id)).toEqual({ count: 0, rows: 0 });
  });

  it('a rolled-back transaction counts nothing', async () => {
    const discount = await createOk({ max_redemptions: 1 });
    const product = await makeProduct(A.org.id);
    const checkout = await makeCheckout(A.org.id, product);
    await expect(
      api.orm.em.fork().transactional(async (tx) => {
        expect(await redeemDiscount(tx, discount.id, checkout)).toBe('redeemed');
        throw new Error('payment declined');
      }),
    ).rejects.toThrow('payment declined');
    expect(await state(discount.id)).toEqual({ count: 0, rows: 0 });
    expect(await redeemInOwnTransaction(discount.id, checkout)).toBe('redeemed');
  });
});
