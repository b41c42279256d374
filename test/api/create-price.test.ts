import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeAdminUser, makeMember, makeTenant, unique, userJwt } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

const URL = '/functions/v1/create-price';
const ID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const TIMESTAMP = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const PLAN_ID = expect.stringMatching(/^plan_[0-9a-f]{24}$/);

/** An organization with one product, and an admin user who is a member of it. */
async function setUp() {
  const tenant = await makeTenant(api.orm);
  const created = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: { organization_id: tenant.org.id, name: 'Course', prices: [{ currency: 'brl', unit_amount: 19900 }] },
  });
  expect(created.status).toBe(201);
  const adminEmail = `${unique('admin')}@example.com`;
  await makeAdminUser(api.orm, adminEmail);
  await makeMember(api.orm, tenant.org.id, adminEmail, 'admin');
  return { tenant, product: created.body, jwt: await userJwt(adminEmail) };
}

async function pricesOf(productId: string) {
  return api.orm.em
    .getConnection()
    .execute<{ id: string; unit_amount: string; active: boolean }[]>(
      'select id, unit_amount, active from prices where product_id = ? order by created_at, id',
      [productId],
    );
}

async function eventTypes(organizationId: string) {
  const rows = await api.orm.em
    .getConnection()
    .execute<{ type: string }[]>('select type from events where organization_id = ? order by created_at, id', [
      organizationId,
    ]);
  return rows.map((r) => r.type);
}

describe('POST /functions/v1/create-price', () => {
  it('creates a one-time price with the spec’s defaults and returns the complete Price', async () => {
    const { tenant, product, jwt } = await setUp();
    const res = await api.call('POST', URL, {
      token: jwt,
      body: { product_id: product.id, currency: 'brl', unit_amount: 0 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: ID,
      product_id: product.id,
      name: null,
      type: 'one_time',
      currency: 'brl',
      unit_amount: 0,
      interval: null,
      interval_count: null,
      tax_behavior: 'unspecified',
      active: true,
      metadata: {},
      gateway_recurrence_plan_id: null,
      created_at: TIMESTAMP,
      modified_at: null,
      deleted_at: null,
    });
    expect((await pricesOf(product.id)).map((p) => p.id)).toEqual([product.prices[0].id, res.body.id]);
    expect(await eventTypes(tenant.org.id)).toEqual(['product.created', 'price.created', 'price.created']);
    const got = await api.call('GET', `/api/v1/products/${product.id}`, { token: tenant.oat });
    expect(got.body.default_price_id).toBe(product.default_price_id);
    expect(got.body.prices[1]).toEqual(res.body);
  });

  it('creates a recurring price with its gateway plan and makes it the default when asked', async () => {
    const { tenant, product, jwt } = await setUp();
    const res = await api.call('POST', URL, {
      token: jwt,
      body: {
        product_id: product.id,
        name: 'Quarterly',
        currency: 'brl',
        unit_amount: 12990,
        type: 'recurring',
        interval: 'month',
        interval_count: 3,
        tax_behavior: 'exclusive',
        metadata: { plan: 'q' },
        set_as_default: true,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: ID,
      product_id: product.id,
      name: 'Quarterly',
      type: 'recurring',
      currency: 'brl',
      unit_amount: 12990,
      interval: 'month',
      interval_count: 3,
      tax_behavior: 'exclusive',
      active: true,
      metadata: { plan: 'q' },
      gateway_recurrence_plan_id: PLAN_ID,
      created_at: TIMESTAMP,
      modified_at: null,
      deleted_at: null,
    });
    const plans = await api.orm.em
      .getConnection()
      .execute('select id, amount, interval, interval_count from gateway_sim.recurrence_plans where reference = ?', [
        res.body.id,
      ]);
    expect(plans).toEqual([
      { id: res.body.gateway_recurrence_plan_id, amount: '12990', interval: 'month', interval_count: 3 },
    ]);

    const got = await api.call('GET', `/api/v1/products/${product.id}`, { token: tenant.oat });
    expect(got.body.default_price_id).toBe(res.body.id);
    expect(got.body.modified_at).toEqual(TIMESTAMP);
    expect(await eventTypes(tenant.org.id)).toEqual([
      'product.created',
      'price.created',
      'price.created',
      'product.updated',
    ]);
  });

  it('defaults interval_count to 1 for a recurring price and can create an archived (inactive) price', async () => {
    const { product, jwt } = await setUp();
    const res = await api.call('POST', URL, {
      token: jwt,
      body: {
        product_id: product.id,
        currency: 'usd',
        unit_amount: 990,
        type: 'recurring',
        interval: 'week',
        active: false,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ currency: 'usd', interval: 'week', interval_count: 1, active: false });
    expect((await pricesOf(product.id))[1]).toEqual({ id: res.body.id, unit_amount: '990', active: false });
  });

  it('still creates the recurring price when the gateway fails; the workflow fills the plan id', async () => {
    const { product, jwt } = await setUp();
    (api.gateway as SimulatedGateway).faults.failNext = 1;
    const res = await api.call('POST', URL, {
      token: jwt,
      body: { product_id: product.id, currency: 'brl', unit_amount: 4990, type: 'recurring', interval: 'month' },
    });
    expect(res.status).toBe(201);
    expect(res.body.gateway_recurrence_plan_id).toBeNull();
    const planId = await waitFor(
      async () => {
        const [row] = await api.orm.em
          .getConnection()
          .execute<{ gateway_recurrence_plan_id: string | null }[]>(
            'select gateway_recurrence_plan_id from prices where id = ?',
            [res.body.id],
          );
        return row!.gateway_recurrence_plan_id;
      },
      { what: 'the workflow to fill the plan id', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(planId).toEqual(PLAN_ID);
  });

  const invalid: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'an invalid currency',
      { currency: 'br' },
      {
        error: 'Invalid price',
        detail: 'currency: currency must be a 3-letter lower-case ISO 4217 code',
        code: 'invalid_price',
      },
    ],
    [
      'unit_amount below 0',
      { unit_amount: -100 },
      {
        error: 'Invalid price',
        detail: 'unit_amount: unit_amount must be an integer >= 0 in minor units',
        code: 'invalid_price',
      },
    ],
    [
      'a recurring price without interval',
      { type: 'recurring' },
      { error: 'Invalid price', detail: 'interval: interval is required for recurring prices', code: 'invalid_price' },
    ],
    [
      'a recurring price with unit_amount 0',
      { type: 'recurring', interval: 'year', unit_amount: 0 },
      {
        error: 'Invalid price',
        detail: 'unit_amount: unit_amount 0 is allowed only for one_time prices',
        code: 'invalid_price',
      },
    ],
    [
      'an interval_count on a one_time price',
      { interval_count: 2 },
      {
        error: 'Invalid price',
        detail: 'interval_count: interval_count is only allowed for recurring prices',
        code: 'invalid_price',
      },
    ],
    [
      'an unknown tax_behavior',
      { tax_behavior: 'included' },
      {
        error: 'Invalid request',
        detail: 'body.tax_behavior: Invalid option: expected one of "unspecified"|"inclusive"|"exclusive"',
        code: 'validation_error',
      },
    ],
    [
      'a product_id that is not a UUID',
      { product_id: 'prod_1' },
      { error: 'Invalid request', detail: 'body.product_id: Invalid UUID', code: 'validation_error' },
    ],
    [
      'a missing currency',
      { currency: undefined },
      {
        error: 'Invalid request',
        detail: 'body.currency: Invalid input: expected string, received undefined',
        code: 'validation_error',
      },
    ],
  ];

  it.each(invalid)('rejects %s with 400 and writes nothing', async (_label, override, expected) => {
    const { product, jwt } = await setUp();
    const res = await api.call('POST', URL, {
      token: jwt,
      body: { product_id: product.id, currency: 'brl', unit_amount: 990, ...override },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(expected);
    expect(await pricesOf(product.id)).toHaveLength(1);
  });

  it('is 422 for a default price that is not active', async () => {
    const { product, jwt } = await setUp();
    const res = await api.call('POST', URL, {
      token: jwt,
      body: { product_id: product.id, currency: 'brl', unit_amount: 990, active: false, set_as_default: true },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'An inactive price cannot be the default price',
      detail: 'set_as_default requires active true',
      code: 'invalid_default_price',
    });
    expect(await pricesOf(product.id)).toHaveLength(1);
  });

  it('is 404 for an unknown product and for an archived (soft-deleted) one', async () => {
    const { tenant, product, jwt } = await setUp();
    const unknown = await api.call('POST', URL, {
      token: jwt,
      body: { product_id: '01900000-0000-7000-8000-000000000000', currency: 'brl', unit_amount: 990 },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Product not found', code: 'not_found' });

    expect((await api.call('DELETE', `/api/v1/products/${product.id}`, { token: tenant.oat })).status).toBe(204);
    const archived = await api.call('POST', URL, {
      token: jwt,
      body: { product_id: product.id, currency: 'brl', unit_amount: 990 },
    });
    expect(archived.status).toBe(404);
    expect(archived.body).toEqual({ error: 'Product not found', code: 'not_found' });
    expect(await pricesOf(product.id)).toHaveLength(1);
  });

  it('is 403 for an admin user who is not a member of the product’s organization', async () => {
    const { product } = await setUp();
    const other = await makeTenant(api.orm);
    const outsiderEmail = `${unique('admin')}@example.com`;
    await makeAdminUser(api.orm, outsiderEmail);
    await makeMember(api.orm, other.org.id, outsiderEmail, 'owner');
    const res = await api.call('POST', URL, {
      token: await userJwt(outsiderEmail),
      body: { product_id: product.id, currency: 'brl', unit_amount: 990 },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'No access to organization',
      detail: `The user is not a member of the organization that owns product ${product.id}`,
      code: 'forbidden',
    });
    expect(await pricesOf(product.id)).toHaveLength(1);
  });

  it('is 403 for a member (even the owner) who is not an admin user', async () => {
    const { tenant, product } = await setUp();
    const res = await api.call('POST', URL, {
      token: tenant.ownerJwt,
      body: { product_id: product.id, currency: 'brl', unit_amount: 990 },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Only admin users can create prices', code: 'forbidden' });
    expect(await pricesOf(product.id)).toHaveLength(1);
  });

  it('accepts only user JWTs: access tokens and API keys are 403, no token is 401', async () => {
    const { tenant, product } = await setUp();
    const body = { product_id: product.id, currency: 'brl', unit_amount: 990 };
    const viaOat = await api.call('POST', URL, { token: tenant.oat, body });
    expect(viaOat.status).toBe(403);
    expect(viaOat.body).toEqual({
      error: 'Organization access tokens are not accepted here',
      detail: 'This operation takes a user JWT (Authorization: Bearer)',
      code: 'forbidden',
    });
    const viaKey = await api.call('POST', URL, { headers: { 'x-service-api-key': tenant.apiKey }, body });
    expect(viaKey.status).toBe(403);
    const anonymous = await api.call('POST', URL, { body });
    expect(anonymous.status).toBe(401);
    const forged = await api.call('POST', URL, { token: 'eyJhbGciOiJIUzI1NiJ9.e30.bad', body });
    expect(forged.status).toBe(401);
    expect(await pricesOf(product.id)).toHaveLength(1);
  });
});
