import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { useApi, type TestApi } from '../helpers/api.ts';
import { paidSubscription as paidSubscriptionOf } from '../helpers/subscriptions.ts';
import { makeApiKey, makeTenant, unique } from '../helpers/fixtures.ts';
import { subscriptionStateQuery, subscriptionWorkflowId } from '../../contracts/subscription.ts';

/**
 * The Customer Portal's subscriptions over HTTPS against the real worker: a customer session reads
 * and changes only its customer's subscriptions, and a change goes through the subscription's
 * workflow as the merchant's PATCH does. Read-side rows are written by SQL; changes use a paid
 * manual-billing card checkout, whose subscription has a running workflow.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started));

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);
const BASE = '/api/v1/customer-portal/subscriptions';
const NOT_FOUND = { error: 'Subscription not found', code: 'not_found' };
/** What the portal shows of a subscription: the merchant's record less workflow and gateway fields. */
const PORTAL_FIELDS = [
  'id',
  'organization_id',
  'status',
  'customer_id',
  'product_id',
  'price_id',
  'checkout_id',
  'amount',
  'subtotal_amount',
  'currency',
  'discount_id',
  'current_period_start',
  'current_period_end',
  'period_number',
  'trial_end',
  'cancel_at_period_end',
  'canceled_at',
  'ended_at',
  'created_at',
  'modified_at',
].sort();

async function sessionFor(t: Tenant, customerId: string): Promise<string> {
  const res = await api.call('POST', '/api/v1/customer-portal/sessions/', {
    token: t.oat,
    body: { customer_id: customerId },
  });
  expect(res.status).toBe(201);
  return res.body.token;
}

async function makeCustomer(orgId: string) {
  const id = uuidv7();
  await sql(
    `insert into customers (id, organization_id, email, created_at, updated_at) values (?, ?, ?, now(), now())`,
    [id, orgId, `${unique('buyer')}@example.com`],
  );
  return id;
}

async function makePlan(orgId: string) {
  const productId = uuidv7();
  const priceId = uuidv7();
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Plan', now())`, [
    productId,
    orgId,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, interval, interval_count,
       tax_behavior, created_at)
     values (?, ?, ?, 'recurring', 'brl', 5990, 'month', 1, 'unspecified', now())`,
    [priceId, productId, orgId],
  );
  return { productId, priceId };
}

/** A subscription row as its workflow would leave it, but with no workflow running. */
async function insertSubscription(
  orgId: string,
  customerId: string,
  plan: { productId: string; priceId: string },
  status = 'active',
  createdAt = '2025-01-01T00:00:00Z',
) {
  const id = uuidv7();
  await sql(
    `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
       gateway_subscription_id, amount, currency, current_period_start, current_period_end, created_at, workflow_id,
       billing_anchor, period_number, subtotal_amount, card_token_id)
     values (?, ?, ?, ?, ?, ?, 'gateway', 'gw_sub_1', 5990, 'brl', '2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z', ?,
       ?, '2025-01-01T00:00:00Z', 1, 5990, 'card_secret')`,
    [id, orgId, customerId, plan.productId, plan.priceId, status, createdAt, `subscription:${id}`],
  );
  return id;
}

/** A paid monthly subscription of a new organization, with its workflow running, and its customer's session. */
async function paidSubscription() {
  const t = await makeTenant(api.orm);
  const { row } = await paidSubscriptionOf(api, temporal, { organizationId: t.org.id, recurrenceBilling: 'manual' });
  return {
    t,
    id: row.id as string,
    customerId: row.customer_id as string,
    session: await sessionFor(t, row.customer_id),
  };
}

const patch = (id: string, token: string, body: unknown) => api.call('PATCH', `${BASE}/${id}`, { token, body });
const events = async (organizationId: string) =>
  (
    await sql(
      `select type from events where organization_id = ? and type like 'subscription.%' order by created_at, id`,
      [organizationId],
    )
  ).map((e) => e.type);
const cancelFlag = async (id: string) =>
  (await sql('select cancel_at_period_end from subscriptions where id = ?', [id]))[0].cancel_at_period_end;

describe('GET /customer-portal/subscriptions/ and /subscriptions/<id>', () => {
  it("lists and reads the session customer's own subscriptions only, without workflow or gateway fields", async () => {
    const a = await makeTenant(api.orm);
    const b = await makeTenant(api.orm);
    const [me, neighbour, stranger] = [
      await makeCustomer(a.org.id),
      await makeCustomer(a.org.id),
      await makeCustomer(b.org.id),
    ];
    const [basic, pro, planOfB] = [await makePlan(a.org.id), await makePlan(a.org.id), await makePlan(b.org.id)];
    const running = await insertSubscription(a.org.id, me, basic, 'active', '2025-01-01T00:00:00Z');
    const ended = await insertSubscription(a.org.id, me, pro, 'canceled', '2025-02-01T00:00:00Z');
    const ofNeighbour = await insertSubscription(a.org.id, neighbour, basic);
    const ofB = await insertSubscription(b.org.id, stranger, planOfB);
    const token = await sessionFor(a, me);
    const list = (query = '') => api.call('GET', `${BASE}/${query}`, { token });
    const ids = async (query: string) => (await list(query)).body.items.map((s: { id: string }) => s.id);

    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ total_count: 2, max_page: 1 });
    expect(all.body.items.map((s: { id: string }) => s.id)).toEqual([ended, running]);
    expect(Object.keys(all.body.items[1]).sort()).toEqual(PORTAL_FIELDS);
    // The workflow, the gateway's subscription and the saved card stay out of what the customer reads.
    expect(JSON.stringify(all.body)).not.toMatch(/subscription:|gw_sub_1|card_secret|gateway|manual/);
    expect(all.body.items[1]).toMatchObject({ id: running, customer_id: me, status: 'active', currency: 'BRL' });

    expect(await ids('?status=canceled')).toEqual([ended]);
    expect(await ids('?active=true')).toEqual([running]);
    expect(await ids('?active=false')).toEqual([ended]);
    expect(await ids('?status=canceled&active=true')).toEqual([]);
    expect(await ids(`?product_id=${pro.productId}`)).toEqual([ended]);
    expect(await ids(`?product_id=${planOfB.productId}`)).toEqual([]);
    expect(await ids('?product_id=not-an-id')).toEqual([]);
    expect(await ids('?sorting=created_at')).toEqual([running, ended]);
    expect((await list('?limit=1')).body.pagination).toEqual({ total_count: 2, max_page: 2 });
    expect((await list('?sorting=workflow_id')).status).toBe(400);

    await sql(
      `insert into subscription_charges (id, organization_id, subscription_id, period_number, try_number, amount,
         currency, outcome, decline_reason, transaction_id, attempted_at)
       values (?, ?, ?, 1, 1, 5990, 'brl', 'failed', 'insufficient_funds', null, '2025-02-01T00:00:00Z')`,
      [uuidv7(), a.org.id, running],
    );
    const one = await api.call('GET', `${BASE}/${running}`, { token });
    expect(one.status).toBe(200);
    expect(Object.keys(one.body).sort()).toEqual([...PORTAL_FIELDS, 'charges', 'mandate'].sort());
    expect(one.body.mandate).toBeNull(); // billed by the card: no Pix Automático mandate
    expect(one.body.charges).toEqual([
      {
        period_number: 1,
        try_number: 1,
        amount: 5990,
        currency: 'BRL',
        outcome: 'failed',
        decline_reason: 'insufficient_funds',
        attempted_at: '2025-02-01T00:00:00.000Z',
      },
    ]);

    // Another customer's, another organization's, an unknown and a malformed id: one and the same 404.
    for (const id of [ofNeighbour, ofB, uuidv7(), 'nope']) {
      const res = await api.call('GET', `${BASE}/${id}`, { token });
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 404, body: NOT_FOUND });
    }
  });
});

describe('PATCH /customer-portal/subscriptions/<id>', () => {
  it("cancels at period end and undoes it through the subscription's workflow, with the merchant's events", async () => {
    const s = await paidSubscription();
    const canceled = await patch(s.id, s.session, { cancel_at_period_end: true });
    expect(canceled.status).toBe(200);
    expect(Object.keys(canceled.body).sort()).toEqual(PORTAL_FIELDS);
    expect(canceled.body).toMatchObject({
      id: s.id,
      customer_id: s.customerId,
      status: 'active',
      cancel_at_period_end: true,
      ended_at: null,
      amount: 4_990,
      currency: 'BRL',
      modified_at: expect.any(String),
    });
    expect(await cancelFlag(s.id)).toBe(true);
    const handle = temporal.workflow.getHandle(subscriptionWorkflowId(s.id));
    expect(await handle.query(subscriptionStateQuery)).toMatchObject({ cancelAtPeriodEnd: true });
    const read = await api.call('GET', `${BASE}/${s.id}`, { token: s.session });
    expect(read.body.cancel_at_period_end).toBe(true);

    const undone = await patch(s.id, s.session, { cancel_at_period_end: false });
    expect(undone.status).toBe(200);
    expect(undone.body.cancel_at_period_end).toBe(false);
    expect(await cancelFlag(s.id)).toBe(false);
    expect(await handle.query(subscriptionStateQuery)).toMatchObject({ cancelAtPeriodEnd: false });
    expect(await events(s.t.org.id)).toEqual([
      'subscription.created',
      'subscription.active',
      'subscription.updated',
      'subscription.uncanceled',
    ]);
  });

  it("answers 404 for another customer's or organization's subscription, and changes nothing", async () => {
    const s = await paidSubscription();
    const neighbour = await sessionFor(s.t, await makeCustomer(s.t.org.id));
    const b = await makeTenant(api.orm);
    const stranger = await sessionFor(b, await makeCustomer(b.org.id));
    for (const token of [neighbour, stranger]) {
      const res = await patch(s.id, token, { cancel_at_period_end: true });
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: NOT_FOUND });
    }
    expect(await cancelFlag(s.id)).toBe(false);
    expect(await events(s.t.org.id)).toEqual(['subscription.created', 'subscription.active']);
  });

  it('answers 403 customer_updates_disabled when the organization does not allow customer updates', async () => {
    const s = await paidSubscription();
    const allow = (on: boolean) =>
      sql(
        `update organizations set subscription_settings = subscription_settings || jsonb_build_object('allow_customer_updates', ?::boolean) where id = ?`,
        [on, s.t.org.id],
      );
    await allow(false);
    const refused = await patch(s.id, s.session, { cancel_at_period_end: true });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'Customer updates are disabled',
      detail: 'The organization does not let customers change their subscriptions; ask the merchant',
      code: 'customer_updates_disabled',
    });
    expect(await cancelFlag(s.id)).toBe(false);
    expect(await events(s.t.org.id)).toEqual(['subscription.created', 'subscription.active']);
    // Reading stays open, and the setting is read at each request.
    expect((await api.call('GET', `${BASE}/${s.id}`, { token: s.session })).status).toBe(200);
    await allow(true);
    expect((await patch(s.id, s.session, { cancel_at_period_end: true })).status).toBe(200);
  });

  it('answers 400 for revoke, a malformed price, two changes, an unknown field or no change at all, and changes nothing', async () => {
    const t = await makeTenant(api.orm);
    const customer = await makeCustomer(t.org.id);
    const id = await insertSubscription(t.org.id, customer, await makePlan(t.org.id));
    const token = await sessionFor(t, customer);
    for (const body of [
      {},
      { cancel_at_period_end: 'yes' },
      { revoke: true },
      { price_id: 'premium' },
      { cancel_at_period_end: true, price_id: uuidv7() },
      { cancel_at_period_end: true, metadata: {} },
    ]) {
      const res = await patch(id, token, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'validation_error',
      });
    }
    expect(await cancelFlag(id)).toBe(false);
  });

  it('answers 409 once the subscription has ended, or when it has no workflow', async () => {
    const s = await paidSubscription();
    const revoked = await api.call('PATCH', `/api/v1/subscriptions/${s.id}`, {
      token: s.t.oat,
      body: { revoke: true },
    });
    expect(revoked.status).toBe(200);
    const late = await patch(s.id, s.session, { cancel_at_period_end: false });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'conflict', error: 'The subscription has ended' });

    const customer = await makeCustomer(s.t.org.id);
    const orphan = await insertSubscription(s.t.org.id, customer, await makePlan(s.t.org.id));
    const res = await patch(orphan, await sessionFor(s.t, customer), { cancel_at_period_end: true });
    expect(res.status).toBe(409);
  });
});

describe('PATCH /customer-portal/subscriptions/<id> with a price_id (plan change)', () => {
  /** Another recurring price of the subscription's product (or of `productId`). */
  async function price(subscriptionId: string, unitAmount: number, interval = 'month', productId?: string) {
    const id = uuidv7();
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
         interval_count, created_at)
       select ?, coalesce(?::uuid, product_id), organization_id, 'recurring', 'brl', ?, 'unspecified', ?, 1, now()
       from subscriptions where id = ?`,
      [id, productId ?? null, unitAmount, interval, subscriptionId],
    );
    return id;
  }
  const terms = async (id: string) =>
    (await sql('select price_id, amount::int as amount, price_changes from subscriptions where id = ?', [id]))[0];
  const saleAmounts = async (id: string) =>
    (await sql('select amount::int as amount from sales where subscription_id = ? order by created_at', [id])).map(
      (x) => x.amount,
    );

  it("an upgrade right after the checkout charges the prorated difference, through the merchant's workflow Update", async () => {
    const s = await paidSubscription();
    const premium = await price(s.id, 9_990);
    const changed = await patch(s.id, s.session, { price_id: premium });
    expect(changed.status).toBe(200);
    expect(Object.keys(changed.body).sort()).toEqual(PORTAL_FIELDS);
    expect(changed.body).toMatchObject({ id: s.id, price_id: premium, amount: 9_990, status: 'active' });
    // R$ 49,90 → R$ 99,90 with (all but seconds of) the month left: R$ 50,00, to the cent.
    expect(await saleAmounts(s.id)).toEqual([4_990, 5_000]);
    const [updated] = await sql(
      `select data from events where organization_id = ? and type = 'subscription.updated' order by created_at desc`,
      [s.t.org.id],
    );
    expect(updated.data).toMatchObject({ price_id: premium, proration: { behavior: 'prorate', charged: 5_000 } });
  });

  it('answers 403 customer_updates_disabled when the organization does not allow it, and charges nothing', async () => {
    const s = await paidSubscription();
    const premium = await price(s.id, 9_990);
    await sql(
      `update organizations set subscription_settings = subscription_settings || '{"allow_customer_updates": false}' where id = ?`,
      [s.t.org.id],
    );
    const refused = await patch(s.id, s.session, { price_id: premium });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('customer_updates_disabled');
    expect(await terms(s.id)).toEqual({
      price_id: expect.not.stringMatching(premium),
      amount: 4_990,
      price_changes: 0,
    });
    expect(await saleAmounts(s.id)).toEqual([4_990]);
  });

  it("answers 422 for a price of another interval, another organization's, another product's or an archived product's, and changes nothing", async () => {
    const s = await paidSubscription();
    const yearly = await price(s.id, 49_900, 'year');
    const interval = await patch(s.id, s.session, { price_id: yearly });
    expect({ status: interval.status, body: interval.body }).toEqual({
      status: 422,
      body: { code: 'plan_change_refused', error: 'The new price bills another interval' },
    });
    const other = await paidSubscription();
    const foreign = await price(other.id, 9_990);
    const stranger = await patch(s.id, s.session, { price_id: foreign });
    expect({ status: stranger.status, body: stranger.body }).toEqual({
      status: 422,
      body: { code: 'plan_change_refused', error: 'Price not found' },
    });
    // Another product of the same organization, on sale: the merchant may move to it, the customer may not.
    const otherProduct = await makePlan(s.t.org.id);
    const elsewhere = await patch(s.id, s.session, { price_id: otherProduct.priceId });
    expect({ status: elsewhere.status, body: elsewhere.body }).toEqual({
      status: 422,
      body: { code: 'plan_change_refused', error: "The new price is of another product than the subscription's" },
    });
    const retired = await makePlan(s.t.org.id);
    await sql('update products set is_archived = true where id = ?', [retired.productId]);
    const archived = await patch(s.id, s.session, { price_id: await price(s.id, 9_990, 'month', retired.productId) });
    expect({ status: archived.status, body: archived.body }).toEqual({
      status: 422,
      body: { code: 'plan_change_refused', error: "The new price's product is archived" },
    });
    expect(await terms(s.id)).toMatchObject({ amount: 4_990, price_changes: 0 });
    expect(await saleAmounts(s.id)).toEqual([4_990]);
  });
});

describe('credentials of the portal subscriptions', () => {
  it('accept only a live customer session: none or an invalid one is 401, a merchant credential 403', async () => {
    const t = await makeTenant(api.orm);
    const customer = await makeCustomer(t.org.id);
    const id = await insertSubscription(t.org.id, customer, await makePlan(t.org.id));
    const expired = await sessionFor(t, customer);
    await sql(`update customer_sessions set expires_at = now() - interval '1 second' where token_hash = ?`, [
      createHash('sha256').update(expired).digest('hex'),
    ]);
    const apiKey = (await makeApiKey(api.orm, t.org.id)).key;
    const requests = [
      ['GET', `${BASE}/`, undefined],
      ['GET', `${BASE}/${id}`, undefined],
      ['PATCH', `${BASE}/${id}`, { cancel_at_period_end: true }],
    ] as const;
    for (const [method, url, body] of requests) {
      const status = async (options: { token?: string; headers?: Record<string, string> }) =>
        (await api.call(method, url, { ...options, body })).status;
      expect({ url, none: await status({}) }).toEqual({ url, none: 401 });
      expect({ url, forged: await status({ token: `svc_cst_${'A'.repeat(43)}` }) }).toEqual({ url, forged: 401 });
      expect({ url, expired: await status({ token: expired }) }).toEqual({ url, expired: 401 });
      expect({ url, oat: await status({ token: t.oat }) }).toEqual({ url, oat: 403 });
      expect({ url, key: await status({ headers: { 'x-service-api-key': apiKey } }) }).toEqual({ url, key: 403 });
      expect({ url, jwt: await status({ token: t.ownerJwt }) }).toEqual({ url, jwt: 403 });
    }
    expect(await cancelFlag(id)).toBe(false);
  });
});
