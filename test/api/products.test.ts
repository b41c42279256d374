import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { ensureRecurrencePlan } from '../../use-cases/recurrence-plans.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeOrganization, makeTenant, unique } from '../helpers/fixtures.ts';
import { recurrencePlanWorkflowId } from '../../contracts/recurrence-plan.ts';
import { waitFor } from '../helpers/processes.ts';

let api: TestApi;
let temporal: Client;
beforeAll(async () => {
  api = await startApi();
  temporal = createTemporalClient(api.config);
});
afterAll(async () => {
  await temporal.connection.close();
  await api.close();
});

type Tenant = Awaited<ReturnType<typeof makeTenant>>;

const ID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const TIMESTAMP = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const PLAN_ID = expect.stringMatching(/^plan_[0-9a-f]{24}$/);

const monthly = { currency: 'brl', unit_amount: 4990, type: 'recurring', interval: 'month' };
const oneTime = { currency: 'brl', unit_amount: 19900, type: 'one_time' };

async function createProduct(tenant: Tenant, body: Record<string, unknown> = {}) {
  const res = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: { organization_id: tenant.org.id, name: unique('Course'), prices: [oneTime], ...body },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function eventsOf(organizationId: string) {
  return api.orm.em
    .getConnection()
    .execute<{ type: string; data: any }[]>(
      'select type, data from events where organization_id = ? order by created_at, id',
      [organizationId],
    );
}

async function planRows(priceId: string) {
  return api.orm.em
    .getConnection()
    .execute<{ id: string; amount: string; currency: string; interval: string; interval_count: number }[]>(
      'select id, amount, currency, interval, interval_count from gateway_sim.recurrence_plans where reference = ?',
      [priceId],
    );
}

async function productCount(organizationId: string): Promise<number> {
  const [row] = await api.orm.em
    .getConnection()
    .execute<{ n: string }[]>('select count(*) as n from products where organization_id = ?', [organizationId]);
  return Number(row!.n);
}

describe('POST /api/v1/products/', () => {
  it('creates the product with its prices, the default price, events and the recurring price’s gateway plan', async () => {
    const tenant = await makeTenant(api.orm);
    const res = await api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: {
        organization_id: tenant.org.id,
        name: 'Yoga Pro',
        description: '**Live** classes',
        metadata: { sku: 'YP-1' },
        is_tax_applicable: false,
        prices: [
          { ...oneTime, name: 'Lifetime', tax_behavior: 'inclusive', metadata: { tier: 'gold' } },
          { ...monthly, interval_count: 3 },
        ],
        default_price_index: 1,
      },
    });
    expect(res.status).toBe(201);
    const product = res.body;
    expect(product).toEqual({
      id: ID,
      organization_id: tenant.org.id,
      name: 'Yoga Pro',
      description: '**Live** classes',
      metadata: { sku: 'YP-1' },
      is_archived: false,
      is_tax_applicable: false,
      default_price_id: product.prices[1].id,
      prices: [
        {
          id: ID,
          product_id: product.id,
          name: 'Lifetime',
          type: 'one_time',
          currency: 'brl',
          unit_amount: 19900,
          interval: null,
          interval_count: null,
          tax_behavior: 'inclusive',
          active: true,
          metadata: { tier: 'gold' },
          gateway_recurrence_plan_id: null,
          created_at: TIMESTAMP,
          modified_at: null,
          deleted_at: null,
        },
        {
          id: ID,
          product_id: product.id,
          name: null,
          type: 'recurring',
          currency: 'brl',
          unit_amount: 4990,
          interval: 'month',
          interval_count: 3,
          tax_behavior: 'unspecified',
          active: true,
          metadata: {},
          gateway_recurrence_plan_id: PLAN_ID,
          created_at: TIMESTAMP,
          modified_at: null,
          deleted_at: null,
        },
      ],
      medias: [],
      created_at: TIMESTAMP,
      modified_at: null,
    });

    const recurring = product.prices[1];
    const plans = await planRows(recurring.id);
    expect(plans).toEqual([
      {
        id: recurring.gateway_recurrence_plan_id,
        amount: '4990',
        currency: 'brl',
        interval: 'month',
        interval_count: 3,
      },
    ]);

    const [row] = await api.orm.em
      .getConnection()
      .execute('select default_price_id, is_tax_applicable from products where id = ?', [product.id]);
    expect(row).toEqual({ default_price_id: recurring.id, is_tax_applicable: false });

    const events = await eventsOf(tenant.org.id);
    expect(events.map((e) => e.type)).toEqual(['product.created', 'price.created', 'price.created']);
    expect(events[0]!.data).toMatchObject({ id: product.id, name: 'Yoga Pro', default_price_id: recurring.id });
    expect(events[0]!.data.prices).toHaveLength(2);
    expect(events.slice(1).map((e) => e.data.id)).toEqual([product.prices[0].id, recurring.id]);
  });

  it('fills the defaults: is_tax_applicable true, first price is the default, interval_count 1, tax_behavior unspecified', async () => {
    const tenant = await makeTenant(api.orm);
    const res = await api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: {
        organization_id: tenant.org.id,
        name: 'Membership',
        prices: [monthly, { currency: 'usd', unit_amount: 0 }],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      description: null,
      metadata: {},
      is_archived: false,
      is_tax_applicable: true,
      default_price_id: res.body.prices[0].id,
    });
    expect(res.body.prices[0]).toMatchObject({
      type: 'recurring',
      interval: 'month',
      interval_count: 1,
      tax_behavior: 'unspecified',
    });
    expect(res.body.prices[1]).toMatchObject({
      type: 'one_time',
      currency: 'usd',
      unit_amount: 0,
      interval: null,
      interval_count: null,
    });
  });

  it('accepts an access token holding only products:write; a repeated request without Idempotency-Key makes a second product', async () => {
    const tenant = await makeTenant(api.orm);
    const token = await makeOat(api.orm, tenant.org.id, ['products:write']);
    const body = { organization_id: tenant.org.id, name: 'Ebook', prices: [oneTime] };
    expect((await api.call('POST', '/api/v1/products/', { token, body })).status).toBe(201);
    expect((await api.call('POST', '/api/v1/products/', { token, body })).status).toBe(201);
    expect(await productCount(tenant.org.id)).toBe(2);
  });

  const invalid: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'empty prices',
      { prices: [] },
      { error: 'Invalid request', detail: 'body.prices: a product needs at least one price', code: 'validation_error' },
    ],
    [
      'an invalid currency',
      { prices: [oneTime, { ...oneTime, currency: 'BRL' }] },
      {
        error: 'Invalid price',
        detail: 'prices.1.currency: currency must be a 3-letter lower-case ISO 4217 code',
        code: 'invalid_price',
      },
    ],
    [
      'unit_amount below 0',
      { prices: [{ ...oneTime, unit_amount: -1 }] },
      {
        error: 'Invalid price',
        detail: 'prices.0.unit_amount: unit_amount must be an integer >= 0 in minor units',
        code: 'invalid_price',
      },
    ],
    [
      'a fractional unit_amount',
      { prices: [{ ...oneTime, unit_amount: 10.5 }] },
      {
        error: 'Invalid price',
        detail: 'prices.0.unit_amount: unit_amount must be an integer >= 0 in minor units',
        code: 'invalid_price',
      },
    ],
    [
      'a recurring price without interval',
      { prices: [oneTime, { currency: 'brl', unit_amount: 4990, type: 'recurring' }] },
      {
        error: 'Invalid price',
        detail: 'prices.1.interval: interval is required for recurring prices',
        code: 'invalid_price',
      },
    ],
    [
      'a recurring price with unit_amount 0',
      { prices: [oneTime, { ...monthly, unit_amount: 0 }] },
      {
        error: 'Invalid price',
        detail: 'prices.1.unit_amount: unit_amount 0 is allowed only for one_time prices',
        code: 'invalid_price',
      },
    ],
    [
      'a one_time price with an interval',
      { prices: [{ ...oneTime, interval: 'month' }] },
      {
        error: 'Invalid price',
        detail: 'prices.0.interval: interval is only allowed for recurring prices',
        code: 'invalid_price',
      },
    ],
    [
      'an inline field that prices do not have',
      { prices: [{ ...oneTime, active: false }] },
      { error: 'Invalid request', detail: 'body.prices.0: Unrecognized key: "active"', code: 'validation_error' },
    ],
    [
      'a missing name',
      { name: undefined },
      {
        error: 'Invalid request',
        detail: 'body.name: Invalid input: expected string, received undefined',
        code: 'validation_error',
      },
    ],
  ];

  it.each(invalid)('rejects %s with 400 and writes nothing', async (_label, override, expected) => {
    const tenant = await makeTenant(api.orm);
    const res = await api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: { organization_id: tenant.org.id, name: 'Bad', prices: [oneTime], ...override },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(expected);
    expect(await productCount(tenant.org.id)).toBe(0);
    expect(await eventsOf(tenant.org.id)).toEqual([]);
  });

  it('rejects a default_price_index past the prices sent with 422 (the request is schema-valid) and writes nothing', async () => {
    const tenant = await makeTenant(api.orm);
    const res = await api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: { organization_id: tenant.org.id, name: 'Bad', prices: [oneTime, monthly], default_price_index: 2 },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Invalid default_price_index',
      detail: 'default_price_index must be between 0 and 1',
      code: 'invalid_default_price_index',
    });
    expect(await productCount(tenant.org.id)).toBe(0);
    expect(await eventsOf(tenant.org.id)).toEqual([]);
  });

  it('is 403 for an organization_id other than the credential’s, a sub-organization included', async () => {
    const tenant = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const child = await makeOrganization(api.orm, { parentId: tenant.org.id });
    for (const organizationId of [other.org.id, child.id]) {
      const res = await api.call('POST', '/api/v1/products/', {
        token: tenant.oat,
        body: { organization_id: organizationId, name: 'Intruder', prices: [oneTime] },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'No access to organization',
        detail: `The credential cannot act on organization ${organizationId}`,
        code: 'forbidden',
      });
      expect(await productCount(organizationId)).toBe(0);
    }
  });

  it('refuses API keys (the write scope does not cover products), read-only tokens and anonymous calls', async () => {
    const tenant = await makeTenant(api.orm);
    const body = { organization_id: tenant.org.id, name: 'Nope', prices: [oneTime] };
    const readKey = (await makeApiKey(api.orm, tenant.org.id, { scopes: ['read'] })).key;
    for (const key of [readKey, tenant.apiKey]) {
      const res = await api.call('POST', '/api/v1/products/', { headers: { 'x-service-api-key': key }, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'Api key lacks required scope',
        detail:
          'This operation takes an organization access token with products:write (Authorization: Bearer), or an API key with the admin scope (X-Service-Api-Key)',
        code: 'forbidden',
      });
    }
    const readToken = await makeOat(api.orm, tenant.org.id, ['products:read']);
    const denied = await api.call('POST', '/api/v1/products/', { token: readToken, body });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'Access token lacks required scope',
      detail:
        'This operation takes an organization access token with products:write (Authorization: Bearer), or an API key with the admin scope (X-Service-Api-Key)',
      code: 'forbidden',
    });
    // No credential: told to send the access token (a dashboard key cannot create products), not a key.
    const anonymous = await api.call('POST', '/api/v1/products/', { body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({
      error: 'Missing Authorization header',
      detail:
        'This operation takes an organization access token with products:write (Authorization: Bearer), or an API key with the admin scope (X-Service-Api-Key)',
      code: 'unauthorized',
    });
    expect(await productCount(tenant.org.id)).toBe(0);
  });

  it('still creates the product when the gateway fails, and the workflow fills the plan id soon after', async () => {
    const tenant = await makeTenant(api.orm);
    (api.gateway as SimulatedGateway).faults.failNext = 1;
    const res = await api.call('POST', '/api/v1/products/', {
      token: tenant.oat,
      body: {
        organization_id: tenant.org.id,
        name: 'Gym',
        prices: [{ ...monthly, interval: 'year', unit_amount: 59900 }],
      },
    });
    expect(res.status).toBe(201);
    const price = res.body.prices[0];
    expect(price.gateway_recurrence_plan_id).toBeNull();

    // The worker process (its own simulator, same books) runs the recurrence-plan workflow.
    const planId = await pollPlanId(price.id, 15_000);
    expect(planId).toEqual(PLAN_ID);
    expect(await planRows(price.id)).toEqual([
      { id: planId, amount: '59900', currency: 'brl', interval: 'year', interval_count: 1 },
    ]);
    const run = temporal.workflow.getHandle(recurrencePlanWorkflowId(price.id));
    expect(await run.result()).toBe(planId);

    const got = await api.call('GET', `/api/v1/products/${res.body.id}`, { token: tenant.oat });
    expect(got.body.prices[0].gateway_recurrence_plan_id).toBe(planId);
  });

  it('makes exactly one gateway plan per price however often it is ensured', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant, { prices: [monthly] });
    const price = product.prices[0];
    const again = await ensureRecurrencePlan({ orm: api.orm, gateway: api.gateway }, price.id);
    const thrice = await ensureRecurrencePlan({ orm: api.orm, gateway: api.gateway }, price.id);
    expect(again).toBe(price.gateway_recurrence_plan_id);
    expect(thrice).toBe(price.gateway_recurrence_plan_id);
    // Even with the stored id wiped, the gateway's idempotency key returns the same plan.
    await api.orm.em
      .getConnection()
      .execute('update prices set gateway_recurrence_plan_id = null where id = ?', [price.id]);
    expect(await ensureRecurrencePlan({ orm: api.orm, gateway: api.gateway }, price.id)).toBe(
      price.gateway_recurrence_plan_id,
    );
    expect(await planRows(price.id)).toHaveLength(1);
  });
});

describe('GET /api/v1/products/<id>', () => {
  it('returns the product with every price, archived ones included', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant, { prices: [oneTime, monthly] });
    const archive = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { archive_price_ids: [product.prices[1].id] },
    });
    expect(archive.status).toBe(200);

    const res = await api.call('GET', `/api/v1/products/${product.id}`, { token: tenant.oat });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...product,
      modified_at: TIMESTAMP,
      prices: [product.prices[0], { ...product.prices[1], active: false, modified_at: TIMESTAMP }],
    });
  });

  it('is readable with a read API key and a products:read or web:read token', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant);
    const readKey = (await makeApiKey(api.orm, tenant.org.id, { scopes: ['read'] })).key;
    const viaKey = await api.call('GET', `/api/v1/products/${product.id}`, {
      headers: { 'x-service-api-key': readKey },
    });
    expect(viaKey.status).toBe(200);
    expect(viaKey.body).toEqual(product);
    for (const scope of ['products:read', 'web:read']) {
      const token = await makeOat(api.orm, tenant.org.id, [scope]);
      const res = await api.call('GET', `/api/v1/products/${product.id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(product.id);
    }
    const wrongScope = await makeOat(api.orm, tenant.org.id, ['customers:read']);
    expect((await api.call('GET', `/api/v1/products/${product.id}`, { token: wrongScope })).status).toBe(403);
  });

  it('is 404 for another organization’s product, an unknown id and a malformed id', async () => {
    const tenant = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const product = await createProduct(tenant);
    for (const [token, id] of [
      [other.oat, product.id],
      [other.apiKey, product.id],
      [tenant.oat, '01900000-0000-7000-8000-000000000000'],
      [tenant.oat, 'not-a-uuid'],
    ] as const) {
      const res = await api.call('GET', `/api/v1/products/${id}`, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Product not found', code: 'not_found' });
    }
  });
});

describe('GET /api/v1/products/', () => {
  it('lists the organization’s products newest first, with prices, paginated', async () => {
    const tenant = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const a = await createProduct(tenant, { name: 'Alpha' });
    const b = await createProduct(tenant, { name: 'beta', prices: [oneTime, monthly] });
    const c = await createProduct(tenant, { name: 'Gamma' });
    await createProduct(other, { name: 'Alpha of another' });

    const first = await api.call('GET', '/api/v1/products/?limit=2', { token: tenant.oat });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ items: [c, b], pagination: { total_count: 3, max_page: 2 } });
    const second = await api.call('GET', '/api/v1/products/?limit=2&page=2', { token: tenant.oat });
    expect(second.body).toEqual({ items: [a], pagination: { total_count: 3, max_page: 2 } });

    const byName = await api.call('GET', '/api/v1/products/?sorting=name', { token: tenant.oat });
    expect(byName.body.items.map((p: any) => p.name)).toEqual(['Alpha', 'Gamma', 'beta']);
    const byNameDesc = await api.call('GET', '/api/v1/products/?sorting=-name', { token: tenant.oat });
    expect(byNameDesc.body.items.map((p: any) => p.name)).toEqual(['beta', 'Gamma', 'Alpha']);
    const oldest = await api.call('GET', '/api/v1/products/?sorting=created_at', { token: tenant.oat });
    expect(oldest.body.items.map((p: any) => p.id)).toEqual([a.id, b.id, c.id]);

    const readKey = (await makeApiKey(api.orm, tenant.org.id, { scopes: ['read'] })).key;
    const viaKey = await api.call('GET', '/api/v1/products/', { headers: { 'x-service-api-key': readKey } });
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.pagination.total_count).toBe(3);
  });

  it('filters by is_archived and by a case-insensitive name substring (wildcards taken literally)', async () => {
    const tenant = await makeTenant(api.orm);
    const yoga = await createProduct(tenant, { name: 'Yoga Basics' });
    const advanced = await createProduct(tenant, { name: 'Advanced YOGA 100%' });
    const other = await createProduct(tenant, { name: 'Pilates' });
    expect((await api.call('DELETE', `/api/v1/products/${other.id}`, { token: tenant.oat })).status).toBe(204);

    const list = async (qs: string) =>
      (await api.call('GET', `/api/v1/products/?${qs}`, { token: tenant.oat })).body.items.map((p: any) => p.name);
    expect(await list('query=yoga')).toEqual(['Advanced YOGA 100%', 'Yoga Basics']);
    expect(await list('query=100%25')).toEqual(['Advanced YOGA 100%']);
    expect(await list('query=_')).toEqual([]);
    expect(await list('is_archived=true')).toEqual(['Pilates']);
    expect(await list('is_archived=false')).toEqual([advanced.name, yoga.name]);
    expect(await list('is_archived=false&query=basics')).toEqual(['Yoga Basics']);
  });

  it('rejects bad list parameters with 400', async () => {
    const tenant = await makeTenant(api.orm);
    const sorting = await api.call('GET', '/api/v1/products/?sorting=price', { token: tenant.oat });
    expect(sorting.status).toBe(400);
    expect(sorting.body).toEqual({
      error: 'Invalid sorting',
      detail: "sorting must be one of created_at, name (prefix with '-' for descending)",
      code: 'invalid_request',
    });
    expect((await api.call('GET', '/api/v1/products/?limit=101', { token: tenant.oat })).status).toBe(400);
    expect((await api.call('GET', '/api/v1/products/?is_archived=yes', { token: tenant.oat })).status).toBe(400);
  });

  it('lets a parent organization’s token list a direct sub-organization, and nobody else’s', async () => {
    const parent = await makeTenant(api.orm);
    const child = await makeOrganization(api.orm, { parentId: parent.org.id });
    const childToken = await makeOat(api.orm, child.id);
    const childProduct = (
      await api.call('POST', '/api/v1/products/', {
        token: childToken,
        body: { organization_id: child.id, name: 'Child course', prices: [oneTime] },
      })
    ).body;

    const res = await api.call('GET', `/api/v1/products/?organization_id=${child.id}`, { token: parent.oat });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [childProduct], pagination: { total_count: 1, max_page: 1 } });

    const stranger = await makeTenant(api.orm);
    const grandchild = await makeOrganization(api.orm, { parentId: child.id });
    const parentKey = (await makeApiKey(api.orm, parent.org.id, { scopes: ['read'] })).key;
    for (const [token, organizationId] of [
      [parent.oat, stranger.org.id],
      [parent.oat, grandchild.id],
      [childToken, parent.org.id],
      [parentKey, child.id],
    ] as const) {
      const denied = await api.call('GET', `/api/v1/products/?organization_id=${organizationId}`, { token });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({
        error: 'No access to organization',
        detail: `The credential cannot act on organization ${organizationId}`,
        code: 'forbidden',
      });
    }
  });
});

describe('PATCH /api/v1/products/<id>', () => {
  it('updates the product’s fields, replacing metadata, and records product.updated', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant, { description: 'old', metadata: { a: 1, b: 2 } });
    const res = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { name: 'Renamed', description: null, metadata: { c: 3 }, is_tax_applicable: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...product,
      name: 'Renamed',
      description: null,
      metadata: { c: 3 },
      is_tax_applicable: false,
      modified_at: TIMESTAMP,
    });
    const events = await eventsOf(tenant.org.id);
    expect(events.map((e) => e.type)).toEqual(['product.created', 'price.created', 'product.updated']);
    expect(events[2]!.data).toEqual(res.body);
  });

  it('adds prices (recurring ones get their plan), archives prices and switches the default in one request', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant, { prices: [oneTime, { ...oneTime, unit_amount: 9900 }] });
    const [first, second] = product.prices;
    const res = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: {
        add_prices: [{ ...monthly, unit_amount: 2990, name: 'Monthly' }],
        archive_price_ids: [first.id],
        default_price_id: second.id,
      },
    });
    expect(res.status).toBe(200);
    const added = res.body.prices[2];
    expect(res.body).toEqual({
      ...product,
      default_price_id: second.id,
      modified_at: TIMESTAMP,
      prices: [
        { ...first, active: false, modified_at: TIMESTAMP },
        second,
        {
          id: ID,
          product_id: product.id,
          name: 'Monthly',
          type: 'recurring',
          currency: 'brl',
          unit_amount: 2990,
          interval: 'month',
          interval_count: 1,
          tax_behavior: 'unspecified',
          active: true,
          metadata: {},
          gateway_recurrence_plan_id: PLAN_ID,
          created_at: TIMESTAMP,
          modified_at: null,
          deleted_at: null,
        },
      ],
    });
    expect(await planRows(added.id)).toHaveLength(1);

    const [archivedRow] = await api.orm.em
      .getConnection()
      .execute('select active from prices where id = ?', [first.id]);
    expect(archivedRow).toEqual({ active: false });
    const events = await eventsOf(tenant.org.id);
    expect(events.slice(3).map((e) => [e.type, e.data.id])).toEqual([
      ['product.updated', product.id],
      ['price.created', added.id],
      ['price.updated', first.id],
    ]);
  });

  it('archives and unarchives the product', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant);
    const archived = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { is_archived: true },
    });
    expect(archived.body.is_archived).toBe(true);
    const restored = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { is_archived: false },
    });
    expect(restored.status).toBe(200);
    expect(restored.body.is_archived).toBe(false);
  });

  it('changes nothing and records nothing for an empty body', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant);
    const res = await api.call('PATCH', `/api/v1/products/${product.id}`, { token: tenant.oat, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(product);
    expect((await eventsOf(tenant.org.id)).map((e) => e.type)).toEqual(['product.created', 'price.created']);
  });

  it('rejects a default_price_id that is not an active price of this product with 422', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant, { prices: [oneTime, monthly] });
    const elsewhere = await createProduct(tenant);
    await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { archive_price_ids: [product.prices[1].id] },
    });

    for (const [body, priceId] of [
      [{ default_price_id: elsewhere.prices[0].id }, elsewhere.prices[0].id],
      [{ default_price_id: product.prices[1].id }, product.prices[1].id],
      [{ default_price_id: product.prices[0].id, archive_price_ids: [product.prices[0].id] }, product.prices[0].id],
    ] as const) {
      const res = await api.call('PATCH', `/api/v1/products/${product.id}`, { token: tenant.oat, body });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: 'default_price_id must be an active price of this product',
        detail: `default_price_id: ${priceId}`,
        code: 'invalid_default_price',
      });
    }
  });

  it('refuses to archive the default price unless a new default is set, and unknown prices', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant, { prices: [oneTime, monthly] });
    const res = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { archive_price_ids: [product.default_price_id], name: 'Not applied' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'The default price cannot be archived',
      detail: 'Set default_price_id to another active price of this product in the same request',
      code: 'default_price_archived',
    });

    const foreign = (await createProduct(tenant)).prices[0].id;
    const unknown = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { archive_price_ids: [foreign] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      error: 'Price not found on this product',
      detail: `archive_price_ids: ${foreign}`,
      code: 'unknown_price',
    });

    const after = await api.call('GET', `/api/v1/products/${product.id}`, { token: tenant.oat });
    expect(after.body).toEqual(product);
  });

  it('validates added prices with the price rules, and prices cannot be edited in place', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant);
    const bad = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { add_prices: [oneTime, { ...monthly, interval: null }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: 'Invalid price',
      detail: 'add_prices.1.interval: interval is required for recurring prices',
      code: 'invalid_price',
    });
    const edit = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: tenant.oat,
      body: { prices: [{ ...oneTime, unit_amount: 1 }] },
    });
    expect(edit.status).toBe(400);
    expect(edit.body).toEqual({
      error: 'Invalid request',
      detail: 'body.(root): Unrecognized key: "prices"',
      code: 'validation_error',
    });
    expect((await api.call('GET', `/api/v1/products/${product.id}`, { token: tenant.oat })).body).toEqual(product);
  });

  it('is 404 for another organization’s product and 403 for API keys', async () => {
    const tenant = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const product = await createProduct(tenant);
    const res = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: other.oat,
      body: { name: 'Hijacked' },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Product not found', code: 'not_found' });
    const viaKey = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      headers: { 'x-service-api-key': tenant.apiKey },
      body: { name: 'Nope' },
    });
    expect(viaKey.status).toBe(403);
    expect(viaKey.body.error).toBe('Api key lacks required scope');
    expect((await api.call('GET', `/api/v1/products/${product.id}`, { token: tenant.oat })).body.name).toBe(
      product.name,
    );
  });
});

describe('DELETE /api/v1/products/<id>', () => {
  it('archives the product, which stays readable, and is idempotent', async () => {
    const tenant = await makeTenant(api.orm);
    const product = await createProduct(tenant);
    const res = await api.call('DELETE', `/api/v1/products/${product.id}`, { token: tenant.oat });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    const got = await api.call('GET', `/api/v1/products/${product.id}`, { token: tenant.oat });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...product, is_archived: true, modified_at: TIMESTAMP });
    expect((await api.call('DELETE', `/api/v1/products/${product.id}`, { token: tenant.oat })).status).toBe(204);
    const events = await eventsOf(tenant.org.id);
    expect(events.map((e) => e.type)).toEqual(['product.created', 'price.created', 'product.updated']);
    expect(events[2]!.data).toEqual(got.body);
  });

  it('is 404 for another organization’s product and 403 for API keys', async () => {
    const tenant = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const product = await createProduct(tenant);
    const res = await api.call('DELETE', `/api/v1/products/${product.id}`, { token: other.oat });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Product not found', code: 'not_found' });
    const viaKey = await api.call('DELETE', `/api/v1/products/${product.id}`, {
      headers: { 'x-service-api-key': tenant.apiKey },
    });
    expect(viaKey.status).toBe(403);
    expect((await api.call('GET', `/api/v1/products/${product.id}`, { token: tenant.oat })).body.is_archived).toBe(
      false,
    );
  });
});

describe('OpenAPI', () => {
  it('documents the catalog routes with the Product and Price shapes', async () => {
    const res = await api.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    expect(Object.keys(paths['/api/v1/products'])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(paths['/api/v1/products/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
    expect(paths['/functions/v1/create-price'].post.summary).toMatch(/price/i);
    // The records are named components (the document's `webhooks` refer to them too).
    const named = (schema: any) => (schema.$ref ? res.body.components.schemas[schema.$ref.split('/').pop()] : schema);
    const product = named(paths['/api/v1/products'].post.responses['201'].content['application/json'].schema);
    expect(named(product.properties.prices.items).properties.unit_amount.type).toBe('integer');
    // Every $ref in the document resolves (no dangling component references).
    const refs = JSON.stringify(res.body).match(/#\/components\/schemas\/[\w-]+/g) ?? [];
    for (const ref of refs) expect(res.body.components?.schemas?.[ref.split('/').pop()!]).toBeDefined();
  });
});

async function pollPlanId(priceId: string, timeoutMs: number): Promise<string> {
  return waitFor(
    async () => {
      const [row] = await api.orm.em
        .getConnection()
        .execute<{ gateway_recurrence_plan_id: string | null }[]>(
          'select gateway_recurrence_plan_id from prices where id = ?',
          [priceId],
        );
      return row?.gateway_recurrence_plan_id;
    },
    { what: `price ${priceId} to have its recurrence plan`, timeoutMs, intervalMs: 200 },
  );
}
