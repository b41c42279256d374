import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeOrganization, makeTenant, unique } from '../helpers/fixtures.ts';

let api: TestApi;
let A: Awaited<ReturnType<typeof makeTenant>>;
let B: Awaited<ReturnType<typeof makeTenant>>;
let productA: string;

beforeAll(async () => {
  api = await startApi();
  A = await makeTenant(api.orm);
  B = await makeTenant(api.orm);
  productA = await makeProduct(A.org.id);
});
afterAll(async () => {
  await api.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sql = <T = any>(query: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(query, params);
const count = async (query: string, params: unknown[] = []) => (await sql<{ n: number }>(query, params))[0]!.n;

/** A product with a one-time BRL default price, written straight to the database. */
async function makeProduct(
  organizationId: string,
  options: { archived?: boolean; price?: 'active' | 'archived' | 'none' } = {},
): Promise<string> {
  const productId = uuidv7();
  await sql(
    `insert into products (id, organization_id, name, metadata, is_archived, is_tax_applicable, default_price_id, created_at)
     values (?, ?, ?, '{}', ?, true, null, now())`,
    [productId, organizationId, unique('product'), options.archived ?? false],
  );
  const price = options.price ?? 'active';
  if (price !== 'none') {
    const priceId = uuidv7();
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, active, metadata, created_at)
       values (?, ?, ?, 'one_time', 'brl', 4990, ?, '{}', now())`,
      [priceId, productId, organizationId, price === 'active'],
    );
    await sql('update products set default_price_id = ? where id = ?', [priceId, productId]);
  }
  return productId;
}

async function makeDiscount(organizationId: string, deleted = false): Promise<string> {
  const id = uuidv7();
  await sql(
    `insert into discounts (id, organization_id, name, type, basis_points, duration, created_at, deleted_at)
     values (?, ?, 'ten', 'percentage', 1000, 'once', now(), ${deleted ? 'now()' : 'null'})`,
    [id, organizationId],
  );
  return id;
}

const create = (body: Record<string, unknown>, token = A.oat) =>
  api.call('POST', '/api/v1/checkout-links/', { token, body });

async function createOk(body: Record<string, unknown> = {}, token = A.oat) {
  const res = await create({ product_ids: [productA], ...body }, token);
  expect(res.status).toBe(201);
  return res.body;
}

const list = (query: string, token = A.oat) => api.call('GET', `/api/v1/checkout-links/${query}`, { token });

const events = (linkId: string) =>
  sql<{ type: string; organization_id: string; data: any }>(
    `select type, organization_id, data from events where data->>'id' = ? order by created_at, id`,
    [linkId],
  );

/** Links of a fresh organization, created at distinct, known times (oldest first). */
async function linksWithTimes(organizationId: string, count: number, productId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = uuidv7();
    ids.push(id);
    await sql(
      `insert into checkout_links (id, organization_id, label, product_ids, metadata, created_at, updated_at)
       values (?, ?, ?, ?::uuid[], '{}', timestamptz '2025-01-01T00:00:00Z' + ? * interval '1 minute',
               timestamptz '2025-06-01T00:00:00Z' - ? * interval '1 minute')`,
      [id, organizationId, `link ${i}`, `{${productId}}`, i, i],
    );
  }
  return ids;
}

describe('POST /api/v1/checkout-links/', () => {
  it('creates a link and returns the complete record with its url', async () => {
    const second = await makeProduct(A.org.id);
    const discountId = await makeDiscount(A.org.id);
    const res = await create({
      label: 'Launch',
      product_ids: [productA, second.toUpperCase(), productA],
      discount_id: discountId,
      allow_discount_codes: false,
      success_url: 'https://shop.example.com/thanks?c={CHECKOUT_ID}',
      cancel_url: 'https://shop.example.com/cart',
      metadata: { channel: 'instagram' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      label: 'Launch',
      url: `${api.config.checkoutLinkBase}/${res.body.id}`,
      product_ids: [productA, second],
      discount_id: discountId,
      success_url: 'https://shop.example.com/thanks?c={CHECKOUT_ID}',
      cancel_url: 'https://shop.example.com/cart',
      metadata: { channel: 'instagram' },
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at,
      organization_id: A.org.id,
      allow_discount_codes: false,
      is_archived: false,
    });
    const [row] = await sql('select organization_id, product_ids, is_archived from checkout_links where id = ?', [
      res.body.id,
    ]);
    expect(row).toEqual({ organization_id: A.org.id, product_ids: [productA, second], is_archived: false });
    expect(await events(res.body.id)).toEqual([
      { type: 'checkout_link.created', organization_id: A.org.id, data: res.body },
    ]);
  });

  it('applies the defaults: no label, no discount, discount codes allowed, no urls, empty metadata', async () => {
    const link = await createOk();
    expect(link).toMatchObject({
      label: null,
      discount_id: null,
      allow_discount_codes: true,
      success_url: null,
      cancel_url: null,
      metadata: {},
    });
  });

  it.each([
    ['no product_ids', { label: 'x' }, 'body.product_ids'],
    ['an empty product_ids', { product_ids: [] }, 'body.product_ids'],
    ['a malformed product id', { product_ids: ['nope'] }, 'body.product_ids.0'],
    ['a malformed success_url', { success_url: 'not a url' }, 'body.success_url'],
    ['a non-http cancel_url', { cancel_url: 'javascript:alert(1)' }, 'body.cancel_url'],
    ['a malformed discount_id', { discount_id: '123' }, 'body.discount_id'],
    ['an unknown field', { price_id: 'x' }, 'price_id'],
  ])('400 for %s', async (_label, body, detail) => {
    const res = await create('product_ids' in body || 'label' in body ? body : { product_ids: [productA], ...body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.detail).toContain(detail);
  });

  it('422 invalid_product for a product of another organization or an unknown product', async () => {
    const foreign = await makeProduct(B.org.id);
    const unknown = uuidv7();
    const res = await create({ product_ids: [productA, foreign, unknown] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Product not found',
      detail: `product_ids: ${foreign}, ${unknown}`,
      code: 'invalid_product',
    });
  });

  it('422 product_archived for an archived product', async () => {
    const archived = await makeProduct(A.org.id, { archived: true });
    const res = await create({ product_ids: [productA, archived] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Product is archived',
      detail: `product_ids: ${archived}`,
      code: 'product_archived',
    });
  });

  it('422 product_without_price for a product whose default price is archived or missing', async () => {
    for (const price of ['archived', 'none'] as const) {
      const product = await makeProduct(A.org.id, { price });
      const res = await create({ product_ids: [product] });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: 'Product has no active default price',
        detail: `product_ids: ${product}`,
        code: 'product_without_price',
      });
    }
  });

  it('422 invalid_discount for a discount of another organization, a deleted or an unknown one', async () => {
    const refused = [await makeDiscount(B.org.id), await makeDiscount(A.org.id, true), uuidv7()];
    for (const discountId of refused) {
      const res = await create({ product_ids: [productA], discount_id: discountId });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: 'Discount not found',
        detail: `discount_id: ${discountId}`,
        code: 'invalid_discount',
      });
    }
    const n = await count('select count(*)::int as n from checkout_links where discount_id = any(?::uuid[])', [
      `{${refused.join(',')}}`,
    ]);
    expect(n).toBe(0);
  });
});

describe('GET /api/v1/checkout-links/:id', () => {
  it('returns the link', async () => {
    const link = await createOk({ label: 'one' });
    const res = await api.call('GET', `/api/v1/checkout-links/${link.id}`, { token: A.oat });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(link);
  });

  it('404 for an unknown or malformed id', async () => {
    for (const id of [uuidv7(), 'nope']) {
      const res = await api.call('GET', `/api/v1/checkout-links/${id}`, { token: A.oat });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Checkout link not found', code: 'not_found' });
    }
  });
});

describe('PATCH /api/v1/checkout-links/:id', () => {
  it('updates the sent fields, clears nulls, bumps updated_at and records checkout_link.updated', async () => {
    const link = await createOk({
      label: 'before',
      success_url: 'https://a.example.com/ok',
      discount_id: await makeDiscount(A.org.id),
      metadata: { a: 1 },
    });
    const other = await makeProduct(A.org.id);
    const discountId = await makeDiscount(A.org.id);
    const res = await api.call('PATCH', `/api/v1/checkout-links/${link.id}`, {
      token: A.oat,
      body: {
        label: 'after',
        product_ids: [other],
        discount_id: discountId,
        allow_discount_codes: false,
        success_url: null,
        cancel_url: 'https://a.example.com/back',
        metadata: { b: 2 },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...link,
      label: 'after',
      product_ids: [other],
      discount_id: discountId,
      allow_discount_codes: false,
      success_url: null,
      cancel_url: 'https://a.example.com/back',
      metadata: { b: 2 },
      updated_at: expect.stringMatching(ISO),
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(link.updated_at));
    const evts = await events(link.id);
    expect(evts.map((e) => e.type)).toEqual(['checkout_link.created', 'checkout_link.updated']);
    expect(evts[1]!.data).toEqual(res.body);

    const cleared = await api.call('PATCH', `/api/v1/checkout-links/${link.id}`, {
      token: A.oat,
      body: { discount_id: null, label: null },
    });
    expect(cleared.body).toMatchObject({ discount_id: null, label: null, product_ids: [other] });
  });

  it('records no event and keeps updated_at for a request that changes nothing', async () => {
    const link = await createOk({ label: 'same' });
    const res = await api.call('PATCH', `/api/v1/checkout-links/${link.id}`, { token: A.oat, body: { label: 'same' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(link);
    expect((await events(link.id)).map((e) => e.type)).toEqual(['checkout_link.created']);
  });

  it('applies the creation rules to new products and discounts (422)', async () => {
    const link = await createOk();
    const archived = await makeProduct(A.org.id, { archived: true });
    const byProduct = await api.call('PATCH', `/api/v1/checkout-links/${link.id}`, {
      token: A.oat,
      body: { product_ids: [archived] },
    });
    expect(byProduct.status).toBe(422);
    expect(byProduct.body.code).toBe('product_archived');
    const byDiscount = await api.call('PATCH', `/api/v1/checkout-links/${link.id}`, {
      token: A.oat,
      body: { discount_id: await makeDiscount(B.org.id) },
    });
    expect(byDiscount.status).toBe(422);
    expect(byDiscount.body.code).toBe('invalid_discount');
    const empty = await api.call('PATCH', `/api/v1/checkout-links/${link.id}`, {
      token: A.oat,
      body: { product_ids: [] },
    });
    expect(empty.status).toBe(400);
    const read = await api.call('GET', `/api/v1/checkout-links/${link.id}`, { token: A.oat });
    expect(read.body).toEqual(link);
  });

  it('is_archived archives and restores a link', async () => {
    const link = await createOk();
    const archived = await api.call('PATCH', `/api/v1/checkout-links/${link.id}`, {
      token: A.oat,
      body: { is_archived: true },
    });
    expect(archived.body.is_archived).toBe(true);
    const restored = await api.call('PATCH', `/api/v1/checkout-links/${link.id}`, {
      token: A.oat,
      body: { is_archived: false },
    });
    expect(restored.body.is_archived).toBe(false);
  });
});

describe('DELETE /api/v1/checkout-links/:id', () => {
  it('archives the link: 204, still readable, out of the default list, checkout_link.deleted once', async () => {
    const T = await makeTenant(api.orm);
    const product = await makeProduct(T.org.id);
    const link = await createOk({ product_ids: [product] }, T.oat);
    const res = await api.call('DELETE', `/api/v1/checkout-links/${link.id}`, { token: T.oat });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');

    const read = await api.call('GET', `/api/v1/checkout-links/${link.id}`, { token: T.oat });
    expect(read.body).toEqual({ ...link, is_archived: true, updated_at: expect.stringMatching(ISO) });
    expect((await list('', T.oat)).body.items).toEqual([]);
    expect((await list('?is_archived=true', T.oat)).body.items).toEqual([read.body]);

    expect((await api.call('DELETE', `/api/v1/checkout-links/${link.id}`, { token: T.oat })).status).toBe(204);
    const evts = await events(link.id);
    expect(evts.map((e) => e.type)).toEqual(['checkout_link.created', 'checkout_link.deleted']);
    expect(evts[1]!.data).toEqual(read.body);
  });
});

describe('GET /api/v1/checkout-links/', () => {
  it('returns 100 links by default, newest first; limit 101 is a 400', async () => {
    const org = await makeOrganization(api.orm);
    const token = await makeOat(api.orm, org.id, ['checkout_links:read']);
    const product = await makeProduct(org.id);
    const ids = await linksWithTimes(org.id, 101, product);

    const page1 = await list('', token);
    expect(page1.status).toBe(200);
    expect(page1.body.items).toHaveLength(100);
    expect(page1.body.pagination).toEqual({ total_count: 101, max_page: 2 });
    expect(page1.body.items[0].id).toBe(ids[100]);
    expect(page1.body.items[0]).toEqual({
      id: ids[100],
      label: 'link 100',
      url: `${api.config.checkoutLinkBase}/${ids[100]}`,
      product_ids: [product],
      discount_id: null,
      success_url: null,
      cancel_url: null,
      metadata: {},
      created_at: '2025-01-01T01:40:00.000Z',
      updated_at: '2025-05-31T22:20:00.000Z',
      organization_id: org.id,
      allow_discount_codes: true,
      is_archived: false,
    });
    const page2 = await list('?page=2', token);
    expect(page2.body.items.map((l: any) => l.id)).toEqual([ids[0]]);

    for (const limit of ['101', '0', 'abc']) {
      const res = await list(`?limit=${limit}`, token);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_error' });
      expect(res.body.detail).toContain('querystring.limit');
    }
    expect((await list('?limit=100', token)).body.items).toHaveLength(100);
  });

  it('sorts by created_at or modified_at (the updated_at column), both ways', async () => {
    const org = await makeOrganization(api.orm);
    const token = await makeOat(api.orm, org.id, ['checkout_links:read']);
    const product = await makeProduct(org.id);
    // created_at rises with the index, updated_at falls with it.
    const ids = await linksWithTimes(org.id, 4, product);
    const order = async (query: string) => (await list(query, token)).body.items.map((l: any) => ids.indexOf(l.id));

    expect(await order('')).toEqual([3, 2, 1, 0]);
    expect(await order('?sort_by=created_at&sort_order=desc')).toEqual([3, 2, 1, 0]);
    expect(await order('?sort_by=created_at&sort_order=asc')).toEqual([0, 1, 2, 3]);
    expect(await order('?sort_by=modified_at')).toEqual([0, 1, 2, 3]);
    expect(await order('?sort_by=modified_at&sort_order=desc')).toEqual([0, 1, 2, 3]);
    expect(await order('?sort_by=modified_at&sort_order=asc')).toEqual([3, 2, 1, 0]);
    expect(await order('?sort_order=asc&limit=2&page=2')).toEqual([2, 3]);

    expect((await list('?sort_by=label', token)).status).toBe(400);
    expect((await list('?sort_order=up', token)).status).toBe(400);
  });

  it('filters by product_id and is_archived', async () => {
    const T = await makeTenant(api.orm);
    const p1 = await makeProduct(T.org.id);
    const p2 = await makeProduct(T.org.id);
    const only1 = await createOk({ product_ids: [p1] }, T.oat);
    const both = await createOk({ product_ids: [p2, p1] }, T.oat);
    const only2 = await createOk({ product_ids: [p2] }, T.oat);
    const archived = await createOk({ product_ids: [p1] }, T.oat);
    await api.call('DELETE', `/api/v1/checkout-links/${archived.id}`, { token: T.oat });
    const ids = async (query: string) => (await list(query, T.oat)).body.items.map((l: any) => l.id);

    expect(await ids('')).toEqual([only2.id, both.id, only1.id]);
    expect(await ids('?is_archived=false')).toEqual([only2.id, both.id, only1.id]);
    expect(await ids('?is_archived=true')).toEqual([archived.id]);
    expect(await ids(`?product_id=${p1}`)).toEqual([both.id, only1.id]);
    expect(await ids(`?product_id=${p2}`)).toEqual([only2.id, both.id]);
    expect(await ids(`?product_id=${p1}&is_archived=true`)).toEqual([archived.id]);
    expect(await ids(`?product_id=${uuidv7()}`)).toEqual([]);
    expect((await list('?product_id=nope', T.oat)).status).toBe(400);
    expect((await list('?is_archived=maybe', T.oat)).status).toBe(400);
  });

  describe('parent-organization rule', () => {
    let parent: { id: string };
    let child1: { id: string };
    let child2: { id: string };
    let grandchild: { id: string };
    const linkOf: Record<string, string> = {};
    const tokens: Record<string, string> = {};

    beforeAll(async () => {
      parent = await makeOrganization(api.orm);
      child1 = await makeOrganization(api.orm, { parentId: parent.id });
      child2 = await makeOrganization(api.orm, { parentId: parent.id });
      grandchild = await makeOrganization(api.orm, { parentId: child1.id });
      for (const [name, org] of Object.entries({ parent, child1, child2, grandchild })) {
        tokens[name] = await makeOat(api.orm, org.id, ['checkout_links:write']);
        const product = await makeProduct(org.id);
        linkOf[name] = (await createOk({ product_ids: [product], label: name }, tokens[name])).id;
      }
    });

    const labels = async (query: string, token: string) => {
      const res = await list(query, token);
      expect(res.status).toBe(200);
      return res.body.items.map((l: any) => l.label).sort();
    };

    it("a parent token without organization_id lists its own and its direct children's links", async () => {
      expect(await labels('', tokens.parent!)).toEqual(['child1', 'child2', 'parent']);
      const res = await list('', tokens.parent!);
      expect(res.body.pagination.total_count).toBe(3);
      expect(res.body.items.find((l: any) => l.label === 'child1').organization_id).toBe(child1.id);
    });

    it('a parent token with organization_id lists that organization only', async () => {
      expect(await labels(`?organization_id=${child2.id}`, tokens.parent!)).toEqual(['child2']);
      expect(await labels(`?organization_id=${parent.id}`, tokens.parent!)).toEqual(['parent']);
    });

    it("403 for an organization outside the token's family (grandchild, unrelated, parent of a child)", async () => {
      for (const [orgId, token] of [
        [grandchild.id, tokens.parent!],
        [A.org.id, tokens.parent!],
        [uuidv7(), tokens.parent!],
        [parent.id, tokens.child1!],
        [child2.id, tokens.child1!],
      ] as const) {
        const res = await list(`?organization_id=${orgId}`, token);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          error: 'No access to organization',
          detail: `The credential cannot act on organization ${orgId}`,
          code: 'forbidden',
        });
      }
    });

    it('a child token lists its own links and those of its own direct children', async () => {
      expect(await labels('', tokens.child2!)).toEqual(['child2']);
      expect(await labels(`?organization_id=${child2.id}`, tokens.child2!)).toEqual(['child2']);
      expect(await labels('', tokens.child1!)).toEqual(['child1', 'grandchild']);
    });

    it("reading, changing or archiving a child's link one by one stays with the child (404 for the parent)", async () => {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { label: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await api.call(method, `/api/v1/checkout-links/${linkOf.child1}`, { token: tokens.parent, body });
        expect(res.status).toBe(404);
      }
    });

    it('an API key lists its own organization only', async () => {
      const { key } = await makeApiKey(api.orm, parent.id, { scopes: ['read'] });
      const res = await api.call('GET', '/api/v1/checkout-links/', { headers: { 'x-service-api-key': key } });
      expect(res.status).toBe(200);
      expect(res.body.items.map((l: any) => l.label)).toEqual(['parent']);
      const child = await api.call('GET', `/api/v1/checkout-links/?organization_id=${child1.id}`, {
        headers: { 'x-service-api-key': key },
      });
      expect(child.status).toBe(403);
    });
  });
});

describe('auth and tenancy', () => {
  it("another organization's credential gets 404 on every route of a link, and never lists it", async () => {
    const link = await createOk({ label: 'private' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { label: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await api.call(method, `/api/v1/checkout-links/${link.id}`, { token: B.oat, body });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Checkout link not found', code: 'not_found' });
    }
    const listed = await list('', B.oat);
    expect(listed.body.items.map((l: any) => l.id)).not.toContain(link.id);
    const [row] = await sql('select label, is_archived from checkout_links where id = ?', [link.id]);
    expect(row).toEqual({ label: 'private', is_archived: false });
  });

  it('OAT scopes: checkout_links:read reads; checkout_links:write and web:write write; others 403', async () => {
    const link = await createOk();
    const reader = await makeOat(api.orm, A.org.id, ['checkout_links:read']);
    const writer = await makeOat(api.orm, A.org.id, ['checkout_links:write']);
    const webRead = await makeOat(api.orm, A.org.id, ['web:read']);
    const unrelated = await makeOat(api.orm, A.org.id, ['checkouts:write']);

    expect((await list('', reader)).status).toBe(200);
    expect((await list('', webRead)).status).toBe(200);
    expect((await api.call('GET', `/api/v1/checkout-links/${link.id}`, { token: writer })).status).toBe(200);
    expect((await create({ product_ids: [productA] }, writer)).status).toBe(201);
    for (const token of [reader, webRead, unrelated]) {
      const res = await create({ product_ids: [productA] }, token);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Access token lacks required scope');
    }
    expect((await list('', unrelated)).status).toBe(403);
    expect((await api.call('DELETE', `/api/v1/checkout-links/${link.id}`, { token: reader })).status).toBe(403);
  });

  it('API keys: read keys may GET; writing needs admin, which keys lack', async () => {
    const link = await createOk();
    const { key } = await makeApiKey(api.orm, A.org.id, { scopes: ['read'] });
    const headers = { 'x-service-api-key': key };
    expect((await api.call('GET', '/api/v1/checkout-links/', { headers })).status).toBe(200);
    const one = await api.call('GET', `/api/v1/checkout-links/${link.id}`, { headers });
    expect(one.body).toEqual(link);
    const writeKey = await makeApiKey(api.orm, A.org.id, { scopes: ['read', 'write'] });
    for (const [method, url, body] of [
      ['POST', '/api/v1/checkout-links/', { product_ids: [productA] }],
      ['PATCH', `/api/v1/checkout-links/${link.id}`, { label: 'x' }],
      ['DELETE', `/api/v1/checkout-links/${link.id}`, undefined],
    ] as const) {
      const res = await api.call(method, url, { headers: { 'x-service-api-key': writeKey.key }, body });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Api key lacks required scope');
    }
  });

  it('401 without a credential', async () => {
    expect((await list('', '')).status).toBe(401);
  });
});
