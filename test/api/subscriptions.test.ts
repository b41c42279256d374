import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeOat, makeTenant, unique, userJwt } from '../helpers/fixtures.ts';

/** The read side of subscriptions: the rows the subscription workflow keeps, as a merchant reads them. */
let api: TestApi;
// A UI behind a path, with a trailing slash: the link must still have exactly one '/' there.
const TEMPORAL_UI_URL = 'https://temporal.example.com/ui/';
beforeAll(async () => {
  api = await startApi({ TEMPORAL_UI_URL });
});
afterAll(async () => {
  await api.close();
});

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);
const uiLink = (id: string) => `https://temporal.example.com/ui/namespaces/default/workflows/subscription%3A${id}`;

async function makePlan(orgId: string, name: string) {
  const productId = uuidv7();
  const priceId = uuidv7();
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, ?, now())`, [
    productId,
    orgId,
    name,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, interval, interval_count,
       tax_behavior, created_at)
     values (?, ?, ?, 'recurring', 'brl', 5990, 'month', 1, 'unspecified', now())`,
    [priceId, productId, orgId],
  );
  return { productId, priceId };
}

async function makeCustomer(orgId: string, externalId: string | null, deleted = false) {
  const id = uuidv7();
  await sql(
    `insert into customers (id, organization_id, email, external_id, created_at, updated_at, deleted_at)
     values (?, ?, ?, ?, now(), now(), ?)`,
    [id, orgId, `${unique('buyer')}@example.com`, externalId, deleted ? new Date() : null],
  );
  return id;
}

interface SubscriptionRow {
  customerId: string;
  plan: { productId: string; priceId: string };
  status?: string;
  amount?: number;
  createdAt: string;
  periodEnd?: string;
}

/** A subscription as the checkout and its workflow leave it (the NOT NULL columns of 0007 included). */
async function makeSubscription(orgId: string, s: SubscriptionRow) {
  const id = uuidv7();
  await sql(
    `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
       amount, currency, current_period_start, current_period_end, created_at, workflow_id, billing_anchor,
       period_number, subtotal_amount)
     values (?, ?, ?, ?, ?, ?, 'manual', ?, 'brl', '2025-01-01T00:00:00Z', ?, ?, ?, '2025-01-01T00:00:00Z', 1, ?)`,
    [
      ...[id, orgId, s.customerId, s.plan.productId, s.plan.priceId, s.status ?? 'active', s.amount ?? 5990],
      ...[s.periodEnd ?? '2025-02-01T00:00:00Z', s.createdAt, `subscription:${id}`, s.amount ?? 5990],
    ],
  );
  return id;
}

/** One row of the timeline: period, try, outcome, attempted_at, decline reason, transaction. */
type ChargeRow = [number, number, string, string, (string | null)?, (string | null)?];

async function addCharges(orgId: string, subscriptionId: string, rows: ChargeRow[]) {
  for (const [period, tryNumber, outcome, at, reason = null, transactionId = null] of rows)
    await sql(
      `insert into subscription_charges (id, organization_id, subscription_id, period_number, try_number, amount,
         currency, outcome, decline_reason, transaction_id, attempted_at)
       values (?, ?, ?, ?, ?, 5391, 'brl', ?, ?, ?, ?)`,
      [uuidv7(), orgId, subscriptionId, period, tryNumber, outcome, reason, transactionId, at],
    );
}

async function makeTransaction(orgId: string) {
  const id = uuidv7();
  await sql(
    `insert into transactions (id, organization_id, gateway_transaction_id, status, payment_type, amount, currency,
       captured_amount, created_at, updated_at)
     values (?, ?, ?, 'succeeded', 'credit', 5391, 'BRL', 5391, now(), now())`,
    [id, orgId, unique('gw')],
  );
  return id;
}

describe('GET /api/v1/subscriptions/<id>', () => {
  it('shows the subscription with every field, a link to its workflow and its charges oldest first', async () => {
    const t = await makeTenant(api.orm);
    const plan = await makePlan(t.org.id, 'Pro');
    const customerId = await makeCustomer(t.org.id, 'crm-1');
    const discountId = uuidv7();
    await sql(
      `insert into discounts (id, organization_id, name, type, basis_points, duration, created_at)
       values (?, ?, 'Ten off', 'percentage', 1000, 'forever', now())`,
      [discountId, t.org.id],
    );
    const id = uuidv7();
    await sql(
      `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
         gateway_subscription_id, amount, currency, discount_id, current_period_start, current_period_end, trial_end,
         cancel_at_period_end, created_at, modified_at, workflow_id, billing_anchor, period_number, card_token_id,
         subtotal_amount)
       values (?, ?, ?, ?, ?, 'past_due', 'manual', null, 5391, 'brl', ?, '2025-02-15T00:00:00Z',
         '2025-03-15T00:00:00Z', '2025-01-15T00:00:00Z', true, '2025-01-01T12:00:00Z', '2025-03-16T08:00:00Z', ?,
         '2025-01-15T00:00:00Z', 2, 'tok_secret_card', 5990)`,
      [id, t.org.id, customerId, plan.productId, plan.priceId, discountId, `subscription:${id}`],
    );
    const [paid1, paid2] = [await makeTransaction(t.org.id), await makeTransaction(t.org.id)];
    // Written out of order: the timeline is sorted by the API, not by insertion.
    await addCharges(t.org.id, id, [
      [2, 3, 'succeeded', '2025-03-20T09:00:00Z', null, paid2],
      [2, 1, 'failed', '2025-03-15T00:00:00Z', 'insufficient_funds'],
      [1, 1, 'refunded', '2025-02-15T00:00:00Z', null, paid1],
      [2, 2, 'failed', '2025-03-16T00:00:00Z', 'card_declined'],
    ]);

    const res = await api.call('GET', `/api/v1/subscriptions/${id}`, { token: t.oat });
    expect(res.status).toBe(200);
    const charge = (period: number, tryNumber: number, outcome: string, at: string, extra = {}) => ({
      period_number: period,
      try_number: tryNumber,
      amount: 5391,
      currency: 'BRL',
      outcome,
      decline_reason: null,
      transaction_id: null,
      attempted_at: at,
      ...extra,
    });
    expect(res.body).toEqual({
      id,
      organization_id: t.org.id,
      status: 'past_due',
      customer_id: customerId,
      product_id: plan.productId,
      price_id: plan.priceId,
      checkout_id: null,
      recurrence_billing: 'manual',
      gateway_subscription_id: null,
      amount: 5391,
      subtotal_amount: 5990,
      currency: 'BRL',
      discount_id: discountId,
      current_period_start: '2025-02-15T00:00:00.000Z',
      current_period_end: '2025-03-15T00:00:00.000Z',
      period_number: 2,
      trial_end: '2025-01-15T00:00:00.000Z',
      cancel_at_period_end: true,
      canceled_at: null,
      ended_at: null,
      created_at: '2025-01-01T12:00:00.000Z',
      modified_at: '2025-03-16T08:00:00.000Z',
      workflow_id: `subscription:${id}`,
      workflow_url: uiLink(id),
      metadata: {},
      charges: [
        charge(1, 1, 'refunded', '2025-02-15T00:00:00.000Z', { transaction_id: paid1 }),
        charge(2, 1, 'failed', '2025-03-15T00:00:00.000Z', { decline_reason: 'insufficient_funds' }),
        charge(2, 2, 'failed', '2025-03-16T00:00:00.000Z', { decline_reason: 'card_declined' }),
        charge(2, 3, 'succeeded', '2025-03-20T09:00:00.000Z', { transaction_id: paid2 }),
      ],
    });
    // The card token charges the customer's card: it never leaves the server.
    expect(JSON.stringify(res.body)).not.toContain('tok_secret_card');
  });

  it('orders charges by attempted_at first, then period, then try; a subscription never charged has none', async () => {
    const t = await makeTenant(api.orm);
    const plan = await makePlan(t.org.id, 'Basic');
    const customerId = await makeCustomer(t.org.id, null);
    const id = await makeSubscription(t.org.id, { customerId, plan, createdAt: '2025-01-01T00:00:00Z' });
    await addCharges(t.org.id, id, [
      [3, 1, 'failed', '2025-04-01T00:00:00Z'],
      [1, 1, 'failed', '2025-04-02T00:00:00Z'],
      [2, 2, 'failed', '2025-04-01T00:00:00Z'],
      [2, 1, 'failed', '2025-04-01T00:00:00Z'],
    ]);
    const res = await api.call('GET', `/api/v1/subscriptions/${id}`, { token: t.oat });
    expect(res.body.charges.map((c: any) => [c.period_number, c.try_number])).toEqual([
      [2, 1],
      [2, 2],
      [3, 1],
      [1, 1],
    ]);

    const fresh = await makeSubscription(t.org.id, { customerId, plan, createdAt: '2025-01-02T00:00:00Z' });
    const none = await api.call('GET', `/api/v1/subscriptions/${fresh}`, {
      headers: { 'x-service-api-key': t.apiKey },
    });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ id: fresh, workflow_url: uiLink(fresh), charges: [] });
  });

  it("answers 404 for another organization's subscription, an unknown id and a malformed one", async () => {
    const t = await makeTenant(api.orm);
    const other = await makeTenant(api.orm);
    const plan = await makePlan(t.org.id, 'Pro');
    const id = await makeSubscription(t.org.id, {
      customerId: await makeCustomer(t.org.id, null),
      plan,
      createdAt: '2025-01-01T00:00:00Z',
    });
    const notFound = { error: 'Subscription not found', code: 'not_found' };
    for (const [path, token] of [
      [id, other.oat],
      [id, (await makeApiKey(api.orm, other.org.id, { scopes: ['read'] })).key],
      [uuidv7(), t.oat],
      ['not-a-uuid', t.oat],
    ] as const) {
      const res = await api.call('GET', `/api/v1/subscriptions/${path}`, { token });
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: notFound });
    }
  });
});

describe('GET /api/v1/subscriptions/', () => {
  let T: Tenant;
  let O: Tenant;
  /** s1…s5 in creation order; ana has two, bruno two, carla (deleted since) one. */
  const s: Record<string, string> = {};
  const c: Record<string, string> = {};
  const p: Record<string, { productId: string; priceId: string }> = {};

  beforeAll(async () => {
    T = await makeTenant(api.orm);
    O = await makeTenant(api.orm);
    p.a = await makePlan(T.org.id, 'Plan A');
    p.b = await makePlan(T.org.id, 'Plan B');
    c.ana = await makeCustomer(T.org.id, 'crm-ana');
    c.bruno = await makeCustomer(T.org.id, 'crm-bruno');
    c.carla = await makeCustomer(T.org.id, 'crm-carla', true);
    // name, customer, plan, status, amount, current_period_end, created_at
    for (const [name, customer, plan, status, amount, periodEnd, createdAt] of [
      ['s1', 'ana', 'a', 'active', 2990, '2025-03-01', '2025-01-01'],
      ['s2', 'bruno', 'b', 'trialing', 9990, '2025-02-10', '2025-01-02'],
      ['s3', 'ana', 'b', 'past_due', 4990, '2025-02-20', '2025-01-03'],
      ['s4', 'bruno', 'a', 'canceled', 1990, '2025-02-01', '2025-01-04'],
      ['s5', 'carla', 'a', 'unpaid', 3990, '2025-02-05', '2025-01-05'],
    ] as const)
      s[name] = await makeSubscription(T.org.id, {
        customerId: c[customer]!,
        plan: p[plan]!,
        status,
        amount,
        periodEnd: `${periodEnd}T00:00:00Z`,
        createdAt: `${createdAt}T00:00:00Z`,
      });
    // Another organization, with a customer of the same external id: never in T's lists.
    const theirs = await makePlan(O.org.id, 'Theirs');
    s.theirs = await makeSubscription(O.org.id, {
      customerId: await makeCustomer(O.org.id, 'crm-ana'),
      plan: theirs,
      createdAt: '2025-01-06T00:00:00Z',
    });
  });

  const list = (qs = '', token = T.oat) => api.call('GET', `/api/v1/subscriptions/${qs}`, { token });
  const ids = async (qs: string) => {
    const res = await list(qs);
    expect(res.status).toBe(200);
    return res.body.items.map((item: any) => Object.keys(s).find((name) => s[name] === item.id));
  };

  it("lists the organization's subscriptions newest first, each as GET /<id> shows it without its charges", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total_count: 5, max_page: 1 });
    expect(await ids('')).toEqual(['s5', 's4', 's3', 's2', 's1']);
    const { charges, ...one } = (await api.call('GET', `/api/v1/subscriptions/${s.s3}`, { token: T.oat })).body;
    expect(charges).toEqual([]);
    expect(res.body.items[2]).toEqual(one);
    expect(one).toMatchObject({ status: 'past_due', customer_id: c.ana, amount: 4990, workflow_url: uiLink(s.s3!) });
  });

  it('filters by status, customer_id, external_customer_id and product_id, together too', async () => {
    expect(await ids('?status=past_due')).toEqual(['s3']);
    expect(await ids('?status=incomplete')).toEqual([]);
    expect(await ids(`?customer_id=${c.ana}`)).toEqual(['s3', 's1']);
    expect(await ids('?external_customer_id=crm-ana')).toEqual(['s3', 's1']);
    expect(await ids('?external_customer_id=crm-bruno')).toEqual(['s4', 's2']);
    expect(await ids(`?product_id=${p.b!.productId}`)).toEqual(['s3', 's2']);
    expect(await ids(`?status=active&product_id=${p.a!.productId}`)).toEqual(['s1']);
    expect(await ids(`?external_customer_id=crm-ana&customer_id=${c.ana}`)).toEqual(['s3', 's1']);
    // Two filters that name different customers match nothing.
    expect(await ids(`?external_customer_id=crm-ana&customer_id=${c.bruno}`)).toEqual([]);
    // A deleted customer no longer holds its external id (as GET /customers/external/<id> says).
    expect(await ids('?external_customer_id=crm-carla')).toEqual([]);
    expect(await ids(`?customer_id=${c.carla}`)).toEqual(['s5']);
    // Unknown and malformed ids match nothing, like a customer of another organization.
    for (const qs of ['?external_customer_id=crm', `?customer_id=${uuidv7()}`, '?product_id=nope', '?customer_id=x'])
      expect((await list(qs)).body).toEqual({ items: [], pagination: { total_count: 0, max_page: 1 } });
  });

  it('sorts by created_at, current_period_end and amount in both directions', async () => {
    expect(await ids('?sorting=created_at')).toEqual(['s1', 's2', 's3', 's4', 's5']);
    expect(await ids('?sorting=current_period_end')).toEqual(['s4', 's5', 's2', 's3', 's1']);
    expect(await ids('?sorting=-amount')).toEqual(['s2', 's3', 's5', 's1', 's4']);
    expect(await ids('?sorting=amount&status=active')).toEqual(['s1']);
  });

  it('paginates with page and limit', async () => {
    const page = (n: number) => list(`?limit=2&page=${n}`);
    const pagination = { total_count: 5, max_page: 3 };
    expect((await page(1)).body.items.map((i: any) => i.id)).toEqual([s.s5, s.s4]);
    expect((await page(3)).body).toMatchObject({ items: [{ id: s.s1 }], pagination });
    expect((await page(4)).body).toEqual({ items: [], pagination });
  });

  it('answers bad query values with 400 and the error body', async () => {
    const sorting = await list('?sorting=status');
    expect(sorting.status).toBe(400);
    expect(sorting.body).toEqual({
      error: 'Invalid sorting',
      detail: "sorting must be one of created_at, current_period_end, amount (prefix with '-' for descending)",
      code: 'invalid_request',
    });
    // A bad sorting is a 400 even when a filter alone would have matched nothing.
    expect((await list('?sorting=status&customer_id=x')).status).toBe(400);
    for (const [qs, field] of [
      ['?status=paused', 'querystring.status'],
      ['?limit=101', 'querystring.limit'],
      ['?page=0', 'querystring.page'],
      [`?external_customer_id=${'x'.repeat(257)}`, 'querystring.external_customer_id'],
    ] as const) {
      const res = await list(qs);
      expect({ qs, status: res.status, body: res.body }).toEqual({
        qs,
        status: 400,
        body: { error: 'Invalid request', code: 'validation_error', detail: expect.stringContaining(field) },
      });
    }
  });

  it("keeps other organizations' subscriptions out, for access tokens and API keys alike", async () => {
    const theirs = await list('', O.oat);
    expect(theirs.body).toMatchObject({ items: [{ id: s.theirs }], pagination: { total_count: 1, max_page: 1 } });
    const byKey = await api.call('GET', '/api/v1/subscriptions/?external_customer_id=crm-ana', {
      headers: { 'x-service-api-key': O.apiKey },
    });
    expect(byKey.body.items.map((i: any) => i.id)).toEqual([s.theirs]);
    expect((await list(`?customer_id=${c.ana}`, O.oat)).body.items).toEqual([]);
  });
});

describe('credentials', () => {
  let T: Tenant;
  let id: string;
  beforeAll(async () => {
    T = await makeTenant(api.orm);
    const plan = await makePlan(T.org.id, 'Pro');
    id = await makeSubscription(T.org.id, {
      customerId: await makeCustomer(T.org.id, null),
      plan,
      createdAt: '2025-01-01T00:00:00Z',
    });
  });
  const both = (options: { token?: string; headers?: Record<string, string> }) =>
    Promise.all([
      api.call('GET', '/api/v1/subscriptions/', options),
      api.call('GET', `/api/v1/subscriptions/${id}`, options),
    ]);

  it('take an access token with subscriptions:read or :write, web:read or web:write', async () => {
    for (const scope of ['subscriptions:read', 'subscriptions:write', 'web:read', 'web:write']) {
      const token = await makeOat(api.orm, T.org.id, [scope]);
      expect({ scope, statuses: (await both({ token })).map((r) => r.status) }).toEqual({
        scope,
        statuses: [200, 200],
      });
    }
  });

  it('refuse an access token without those scopes with 403', async () => {
    const token = await makeOat(api.orm, T.org.id, ['sales:read', 'customers:write']);
    for (const res of await both({ token })) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'Access token lacks required scope',
        detail:
          'This operation takes an organization access token with subscriptions:read (Authorization: Bearer), or an API key with the read scope (X-Service-Api-Key)',
        code: 'forbidden',
      });
    }
  });

  it('take an API key with the read scope, in X-Service-Api-Key or as a bearer token', async () => {
    const { key } = await makeApiKey(api.orm, T.org.id, { scopes: ['read'] });
    expect((await both({ headers: { 'x-service-api-key': key } })).map((r) => r.status)).toEqual([200, 200]);
    expect((await both({ token: key })).map((r) => r.status)).toEqual([200, 200]);
  });

  it('refuse a user JWT (organization resources take an access token) and answer 401 without a credential', async () => {
    const [jwtList] = await both({ token: await userJwt(T.ownerEmail) });
    expect(jwtList.status).toBe(403);
    expect(jwtList.body).toEqual({
      error: 'User tokens are not accepted here',
      detail:
        'This operation takes an organization access token with subscriptions:read (Authorization: Bearer), or an API key with the read scope (X-Service-Api-Key)',
      code: 'forbidden',
    });
    const [anonymous] = await both({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({
      error: 'Missing X-Service-Api-Key header',
      detail:
        'This operation takes an organization access token with subscriptions:read (Authorization: Bearer), or an API key with the read scope (X-Service-Api-Key)',
      code: 'unauthorized',
    });
  });
});
