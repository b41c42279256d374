import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { TEST_TEMPORAL_ADDRESS } from '../helpers/env.ts';
import { makeApiKey, makeOat, makeOrganization, makeTenant, unique } from '../helpers/fixtures.ts';

let api: TestApi;
let temporal: Client;
let A: Awaited<ReturnType<typeof makeTenant>>;
let B: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  api = await startApi();
  temporal = new Client({ connection: await Connection.connect({ address: TEST_TEMPORAL_ADDRESS }) });
  A = await makeTenant(api.orm);
  B = await makeTenant(api.orm);
});
afterAll(async () => {
  await temporal.connection.close();
  await api.close();
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);

interface PriceSpec {
  unitAmount?: number;
  type?: 'one_time' | 'recurring';
  interval?: 'day' | 'week' | 'month' | 'year' | null;
  currency?: string;
  active?: boolean;
}

/** A product with one default price, written straight to the database. */
async function makeProduct(organizationId: string, price: PriceSpec = {}, archived = false) {
  const productId = uuidv7();
  const priceId = uuidv7();
  const type = price.type ?? 'one_time';
  await sql(
    `insert into products (id, organization_id, name, description, is_archived, default_price_id, created_at)
     values (?, ?, ?, 'A fine thing', ?, null, now())`,
    [productId, organizationId, unique('product'), archived],
  );
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, interval, interval_count, active, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, now())`,
    [
      priceId,
      productId,
      organizationId,
      type,
      price.currency ?? 'brl',
      price.unitAmount ?? 4990,
      type === 'recurring' ? (price.interval ?? 'month') : null,
      type === 'recurring' ? 1 : null,
      price.active ?? true,
    ],
  );
  await sql('update products set default_price_id = ? where id = ?', [priceId, productId]);
  return { productId, priceId };
}

async function addPrice(organizationId: string, productId: string, unitAmount: number, active = true) {
  const id = uuidv7();
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, active, created_at)
     values (?, ?, ?, 'one_time', 'brl', ?, ?, now())`,
    [id, productId, organizationId, unitAmount, active],
  );
  return id;
}

async function makeDiscount(organizationId: string, fields: Record<string, unknown> = {}) {
  const id = uuidv7();
  const d = {
    type: 'percentage',
    basis_points: 1000,
    amount: null,
    currency: null,
    ends_at: null,
    product_ids: '{}',
    ...fields,
  };
  await sql(
    `insert into discounts (id, organization_id, name, type, basis_points, amount, currency, duration, ends_at, product_ids, created_at)
     values (?, ?, 'promo', ?, ?, ?, ?, 'once', ?, ?::uuid[], now())`,
    [id, organizationId, d.type, d.basis_points, d.amount, d.currency, d.ends_at, d.product_ids],
  );
  return id;
}

async function makeCustomer(organizationId: string) {
  const id = uuidv7();
  await sql(
    `insert into customers (id, organization_id, email, created_at, updated_at) values (?, ?, ?, now(), now())`,
    [id, organizationId, `${unique('c')}@example.com`],
  );
  return id;
}

const create = (body: Record<string, unknown>, token = A.oat, headers: Record<string, string> = {}) =>
  api.call('POST', '/api/v1/checkouts/', { token, body, headers });

async function createOk(body: Record<string, unknown>, token = A.oat) {
  const res = await create(body, token);
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  return res.body;
}

const row = async (id: string) => (await sql('select * from checkouts where id = ?', [id]))[0];
const events = (id: string, type: string) =>
  sql<{ organization_id: string; data: any }>(
    `select organization_id, data from events where type = ? and data->>'id' = ? order by created_at`,
    [type, id],
  );

/** The record an event carries: the API's answer without its url (the hosted page's address). */
const recordOf = ({ url: _url, ...record }: Record<string, unknown>) => record;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CPF = { formatted: '529.982.247-25', digits: '52998224725' };
const CNPJ = { formatted: '11.222.333/0001-81', digits: '11222333000181' };

describe('POST /api/v1/checkouts/', () => {
  it('creates an open checkout with every field, its event and its running workflow', async () => {
    const { productId, priceId } = await makeProduct(A.org.id, { unitAmount: 4990 });
    const before = Date.now();
    const res = await create({
      product_id: productId,
      quantity: 2,
      customer_email: 'Buyer@Example.com',
      customer_name: 'Ana Souza',
      success_url: 'https://shop.example.com/ok',
      cancel_url: 'https://shop.example.com/cancel',
      embed_origin: 'https://shop.example.com',
      metadata: { order: '42' },
    });
    expect(res.status).toBe(201);
    const c = res.body;
    expect(c).toEqual({
      id: expect.any(String),
      organization_id: A.org.id,
      status: 'open',
      client_secret: expect.stringMatching(/^cs_[A-Za-z0-9_-]{43}$/),
      payment_processor: 'gateway',
      product_id: productId,
      product_price_id: priceId,
      products: [productId],
      quantity: 2,
      currency: 'BRL',
      subtotal_amount: 9980,
      discount_amount: 0,
      amount: 9980,
      discount_id: null,
      allow_discount_codes: true,
      customer_id: null,
      external_customer_id: null,
      is_business_customer: false,
      customer_name: 'Ana Souza',
      customer_email: 'buyer@example.com',
      customer_ip_address: null,
      customer_billing_name: null,
      customer_billing_address: null,
      customer_tax_id: null,
      customer_metadata: {},
      subscription_id: null,
      recurrence_billing: 'gateway',
      trial_interval: null,
      trial_interval_count: null,
      require_billing_address: false,
      success_url: 'https://shop.example.com/ok',
      cancel_url: 'https://shop.example.com/cancel',
      embed_origin: 'https://shop.example.com',
      metadata: { order: '42' },
      no_fees_installments: false,
      checkout_link_id: null,
      payment_method: null,
      gateway_payment_data: null,
      decline_reason: null,
      workflow_id: `checkout:${c.id}`,
      expires_at: expect.stringMatching(ISO),
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      url: expect.any(String),
    });
    // The hosted page's absolute address (test/api/checkout-answers.test.ts opens it).
    expect(c.url).toBe(`${api.config.publicBaseUrl}/checkout/c/${c.client_secret}`);
    expect(res.headers.deprecation).toBeUndefined();
    // Expires one hour after creation by default.
    expect(Date.parse(c.expires_at) - Date.parse(c.created_at)).toBe(3_600_000);
    expect(Date.parse(c.created_at)).toBeGreaterThanOrEqual(before - 1000);

    const stored = await row(c.id);
    expect(stored).toMatchObject({ status: 'open', client_secret: c.client_secret, amount: '9980', quantity: 2 });
    const created = await events(c.id, 'checkout.created');
    expect(created).toEqual([{ organization_id: A.org.id, data: recordOf(c) }]);

    const description = await temporal.workflow.getHandle(`checkout:${c.id}`).describe();
    expect(description.type).toBe('checkoutWorkflow');
    expect(description.status.name).toBe('RUNNING');
    expect(description.taskQueue).toBe(api.config.TEMPORAL_TASK_QUEUE);
    expect(description.typedSearchAttributes.get(defineSearchAttributeKey('CheckoutId', 'KEYWORD'))).toBe(c.id);
    expect(description.typedSearchAttributes.get(defineSearchAttributeKey('OrganizationId', 'KEYWORD'))).toBe(A.org.id);
  });

  it('gives every checkout its own client_secret', async () => {
    const { productId } = await makeProduct(A.org.id);
    const [a, b] = await Promise.all([createOk({ product_id: productId }), createOk({ product_id: productId })]);
    expect(a.client_secret).not.toBe(b.client_secret);
  });

  it('takes all the customer fields, validating the email, IP and tax id', async () => {
    const { productId } = await makeProduct(A.org.id);
    const customerId = await makeCustomer(A.org.id);
    const c = await createOk({
      product_id: productId,
      customer_id: customerId,
      is_business_customer: true,
      external_customer_id: 'ext-1',
      customer_ip_address: '203.0.113.7',
      customer_billing_name: 'ACME Ltda',
      customer_billing_address: {
        line1: 'Rua A, 1',
        city: 'São Paulo',
        state: 'SP',
        postal_code: '01000-000',
        country: 'br',
      },
      customer_tax_id: CNPJ.formatted,
      customer_metadata: { tier: 'gold' },
      require_billing_address: true,
      no_fees_installments: true,
      allow_discount_codes: false,
    });
    expect(c).toMatchObject({
      customer_id: customerId,
      is_business_customer: true,
      external_customer_id: 'ext-1',
      customer_ip_address: '203.0.113.7',
      customer_billing_name: 'ACME Ltda',
      customer_billing_address: {
        line1: 'Rua A, 1',
        city: 'São Paulo',
        state: 'SP',
        postal_code: '01000-000',
        country: 'BR',
      },
      customer_tax_id: CNPJ.digits,
      customer_metadata: { tier: 'gold' },
      require_billing_address: true,
      no_fees_installments: true,
      allow_discount_codes: false,
    });
    const cpf = await createOk({ product_id: productId, customer_tax_id: CPF.formatted });
    expect(cpf.customer_tax_id).toBe(CPF.digits);

    // Well-formed, wrong check digits: a rule the document cannot state, so a 422.
    const badTax = await create({ product_id: productId, customer_tax_id: '529.982.247-26' });
    expect(badTax.status).toBe(422);
    expect(badTax.body).toEqual({
      error: 'Invalid customer_tax_id',
      detail: 'Expected a valid CPF or CNPJ',
      code: 'invalid_tax_id',
    });
    for (const bad of [
      { customer_email: 'not-an-email' },
      { customer_ip_address: '999.1.1.1' },
      { customer_billing_address: { line1: 'x', city: 'y', country: 'BRA' } },
    ]) {
      const res = await create({ product_id: productId, ...bad });
      expect({ bad, status: res.status, code: res.body.code }).toEqual({ bad, status: 400, code: expect.any(String) });
    }
  });

  it('answers product_price_id (deprecated) with the Deprecation header and charges that price', async () => {
    const { productId } = await makeProduct(A.org.id, { unitAmount: 1000 });
    const other = await addPrice(A.org.id, productId, 2500);
    const res = await create({ product_price_id: other, quantity: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      product_id: productId,
      product_price_id: other,
      subtotal_amount: 7500,
      amount: 7500,
    });
    expect(res.headers.deprecation).toBe('true');
    expect(res.headers.link).toMatch(/^<https:\/\/.+\/docs#[^>]+>; rel="deprecation"/);
    // product_id and product_price_id together: the price must be one of the product's.
    const both = await create({ product_id: productId, product_price_id: other });
    expect(both.status).toBe(201);
    const { priceId: foreign } = await makeProduct(A.org.id);
    const mismatch = await create({ product_id: productId, product_price_id: foreign });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.code).toBe('price_not_of_product');
  });

  it('offers products[] and charges the first at its default price', async () => {
    const p1 = await makeProduct(A.org.id, { unitAmount: 1500 });
    const p2 = await makeProduct(A.org.id, { unitAmount: 9000 });
    const c = await createOk({ products: [p1.productId, p2.productId] });
    expect(c).toMatchObject({
      product_id: p1.productId,
      product_price_id: p1.priceId,
      products: [p1.productId, p2.productId],
      amount: 1500,
    });
    const withCharged = await createOk({ product_id: p2.productId, products: [p1.productId] });
    expect(withCharged).toMatchObject({
      product_id: p2.productId,
      products: [p2.productId, p1.productId],
      amount: 9000,
    });
    const foreign = await makeProduct(B.org.id);
    const res = await create({ products: [p1.productId, foreign.productId] });
    expect(res.status).toBe(404);
  });

  it('needs a product field', async () => {
    const res = await create({ quantity: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'A product is required',
      detail: 'Send product_id (recommended), product_price_id or products',
      code: 'invalid_request',
    });
  });

  it('accepts only the gateway payment processor', async () => {
    const { productId } = await makeProduct(A.org.id);
    expect((await create({ product_id: productId, payment_processor: 'gateway' })).status).toBe(201);
    const res = await create({ product_id: productId, payment_processor: 'stripe' });
    expect(res.status).toBe(400);
  });

  it.each([
    [{ quantity: 0 }],
    [{ quantity: 1.5 }],
    [{ amount: 0 }],
    [{ success_url: 'not a url' }],
    [{ success_url: 'javascript:alert(1)' }],
    [{ embed_origin: 'https://shop.example.com/path' }],
    [{ recurrence_billing: 'yearly' }],
    [{ trial_interval: 'month' }],
    [{ expires_in_minutes: 5 }],
    [{ expires_in_minutes: 1441 }],
    [{ unknown_field: 1 }],
    [{ product_id: 'not-a-uuid' }],
  ])('refuses %p with 400', async (extra) => {
    const { productId } = await makeProduct(A.org.id);
    const res = await create({ product_id: productId, ...extra });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String), code: expect.any(String) });
  });

  it('sets expires_at from expires_in_minutes', async () => {
    const { productId } = await makeProduct(A.org.id);
    const c = await createOk({ product_id: productId, expires_in_minutes: 30 });
    expect(Date.parse(c.expires_at) - Date.parse(c.created_at)).toBe(30 * 60_000);
  });

  it('refuses an archived product or price, and a product without default price, with 422', async () => {
    const archived = await makeProduct(A.org.id, {}, true);
    let res = await create({ product_id: archived.productId });
    expect([res.status, res.body.code]).toEqual([422, 'product_archived']);
    const inactive = await makeProduct(A.org.id, { active: false });
    res = await create({ product_id: inactive.productId });
    expect([res.status, res.body.code]).toEqual([422, 'price_inactive']);
    const { productId } = await makeProduct(A.org.id);
    const old = await addPrice(A.org.id, productId, 100, false);
    res = await create({ product_price_id: old });
    expect([res.status, res.body.code]).toEqual([422, 'price_inactive']);
    const bare = await makeProduct(A.org.id);
    await sql('update products set default_price_id = null where id = ?', [bare.productId]);
    res = await create({ product_id: bare.productId });
    expect([res.status, res.body.code]).toEqual([422, 'no_default_price']);
  });

  describe('free-price products', () => {
    it('charge the amount sent × quantity', async () => {
      const { productId } = await makeProduct(A.org.id, { unitAmount: 0 });
      const c = await createOk({ product_id: productId, amount: 1234, quantity: 2 });
      expect(c).toMatchObject({ subtotal_amount: 2468, amount: 2468 });
    });

    it('need the amount', async () => {
      const { productId } = await makeProduct(A.org.id, { unitAmount: 0 });
      const res = await create({ product_id: productId });
      expect([res.status, res.body.code]).toEqual([422, 'amount_required']);
    });

    it('are the only ones that take an amount', async () => {
      const { productId } = await makeProduct(A.org.id, { unitAmount: 5000 });
      const res = await create({ product_id: productId, amount: 100 });
      expect([res.status, res.body.code]).toEqual([422, 'amount_not_allowed']);
    });
  });

  describe('discounts', () => {
    it('pre-applies a percentage discount to the exact cent', async () => {
      const { productId } = await makeProduct(A.org.id, { unitAmount: 335 });
      const discountId = await makeDiscount(A.org.id, { basis_points: 1000 });
      const c = await createOk({ product_id: productId, quantity: 3, discount_id: discountId });
      expect(c).toMatchObject({ subtotal_amount: 1005, discount_amount: 101, amount: 904, discount_id: discountId });
    });

    it('counts each redemption once and stops at max_redemptions, even under concurrent checkouts', async () => {
      const { productId } = await makeProduct(A.org.id, { unitAmount: 1000 });
      const discountId = await makeDiscount(A.org.id, { basis_points: 500 });
      await sql('update discounts set max_redemptions = 2 where id = ?', [discountId]);
      const results = await Promise.all(
        Array.from({ length: 5 }, () => create({ product_id: productId, discount_id: discountId })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 422, 422, 422]);
      // One answer, whether the count was read used up or the redemption was taken first.
      for (const r of results.filter((r) => r.status === 422)) expect(r.body.code).toBe('discount_exhausted');
      const late = await create({ product_id: productId, discount_id: discountId });
      expect([late.status, late.body.code]).toEqual([422, 'discount_exhausted']);
      const [d] = await sql('select redemptions_count from discounts where id = ?', [discountId]);
      expect(d.redemptions_count).toBe(2);
      // Taking the discount off an open checkout gives its redemption back.
      const holder = results.find((r) => r.status === 201)!.body;
      const released = await api.call('PATCH', `/api/v1/checkouts/${holder.id}`, {
        token: A.oat,
        body: { discount_id: null },
      });
      expect(released.status).toBe(200);
      const [after] = await sql('select redemptions_count from discounts where id = ?', [discountId]);
      expect(after.redemptions_count).toBe(1);
      expect((await create({ product_id: productId, discount_id: discountId })).status).toBe(201);
    });

    it('pre-applies a fixed discount capped at the subtotal', async () => {
      const { productId } = await makeProduct(A.org.id, { unitAmount: 4990 });
      const fixed = await makeDiscount(A.org.id, { type: 'fixed', basis_points: null, amount: 1000, currency: 'brl' });
      expect(await createOk({ product_id: productId, discount_id: fixed })).toMatchObject({
        subtotal_amount: 4990,
        discount_amount: 1000,
        amount: 3990,
      });
      const big = await makeDiscount(A.org.id, { type: 'fixed', basis_points: null, amount: 999_999, currency: 'brl' });
      expect(await createOk({ product_id: productId, discount_id: big })).toMatchObject({
        discount_amount: 4990,
        amount: 0,
      });
    });

    it('refuses a discount that does not apply, with the reason', async () => {
      const { productId } = await makeProduct(A.org.id);
      const ended = await makeDiscount(A.org.id, { ends_at: new Date(Date.now() - 60_000) });
      let res = await create({ product_id: productId, discount_id: ended });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        error: 'The discount does not apply to this checkout',
        detail: 'ended',
        code: 'discount_not_applicable',
      });
      const other = await makeProduct(A.org.id);
      const restricted = await makeDiscount(A.org.id, { product_ids: `{${other.productId}}` });
      res = await create({ product_id: productId, discount_id: restricted });
      expect([res.status, res.body.detail]).toEqual([422, 'product_not_eligible']);
    });

    it("refuses another organization's discount as unknown", async () => {
      const { productId } = await makeProduct(A.org.id);
      const theirs = await makeDiscount(B.org.id);
      const res = await create({ product_id: productId, discount_id: theirs });
      expect([res.status, res.body.code]).toEqual([422, 'discount_not_found']);
    });
  });

  it("refuses another organization's customer, subscription or checkout link with 422", async () => {
    const { productId } = await makeProduct(A.org.id);
    let res = await create({ product_id: productId, customer_id: await makeCustomer(B.org.id) });
    expect([res.status, res.body.code]).toEqual([422, 'customer_not_found']);
    res = await create({ product_id: productId, subscription_id: uuidv7() });
    expect([res.status, res.body.code]).toEqual([422, 'subscription_not_found']);
    res = await create({ product_id: productId, checkout_link_id: uuidv7() });
    expect([res.status, res.body.code]).toEqual([422, 'checkout_link_not_found']);
  });

  it('stores an existing subscription for an upgrade and the checkout link it came from', async () => {
    const { productId, priceId } = await makeProduct(A.org.id, { type: 'recurring', unitAmount: 2990 });
    const customerId = await makeCustomer(A.org.id);
    const subscriptionId = uuidv7();
    await sql(
      `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing, amount,
         subtotal_amount, currency, current_period_start, current_period_end, created_at, workflow_id, billing_anchor)
       values (?, ?, ?, ?, ?, 'active', 'manual', 2990, 2990, 'BRL', now(), now() + interval '1 month', now(), ?, now())`,
      [subscriptionId, A.org.id, customerId, productId, priceId, `subscription:${subscriptionId}`],
    );
    const linkId = uuidv7();
    await sql(
      `insert into checkout_links (id, organization_id, product_ids, created_at, updated_at) values (?, ?, ?::uuid[], now(), now())`,
      [linkId, A.org.id, `{${productId}}`],
    );
    const c = await createOk({ product_id: productId, subscription_id: subscriptionId, checkout_link_id: linkId });
    // An upgrade is the subscription customer's, billed as the subscription is (test/api/subscription-upgrades.test.ts).
    expect(c).toMatchObject({
      subscription_id: subscriptionId,
      checkout_link_id: linkId,
      customer_id: customerId,
      recurrence_billing: 'manual',
    });
    await sql('update checkout_links set is_archived = true where id = ?', [linkId]);
    const res = await create({ product_id: productId, checkout_link_id: linkId });
    expect([res.status, res.body.code]).toEqual([422, 'checkout_link_archived']);
  });

  describe('recurring prices', () => {
    it('take a trial and manual recurrence billing', async () => {
      const { productId } = await makeProduct(A.org.id, { type: 'recurring', unitAmount: 2990 });
      const c = await createOk({
        product_id: productId,
        trial_interval: 'day',
        trial_interval_count: 7,
        recurrence_billing: 'manual',
      });
      expect(c).toMatchObject({
        trial_interval: 'day',
        trial_interval_count: 7,
        recurrence_billing: 'manual',
        amount: 2990,
      });
    });

    it('are the only ones with a trial or manual recurrence billing', async () => {
      const { productId } = await makeProduct(A.org.id);
      let res = await create({ product_id: productId, trial_interval: 'day', trial_interval_count: 7 });
      expect([res.status, res.body.code]).toEqual([422, 'trial_not_allowed']);
      res = await create({ product_id: productId, recurrence_billing: 'manual' });
      expect([res.status, res.body.code]).toEqual([422, 'recurrence_billing_not_allowed']);
    });
  });

  describe('authorization', () => {
    it('accepts an OAT with checkouts:write or web:write, and refuses others', async () => {
      const { productId } = await makeProduct(A.org.id);
      expect(
        (await create({ product_id: productId }, await makeOat(api.orm, A.org.id, ['checkouts:write']))).status,
      ).toBe(201);
      expect((await create({ product_id: productId }, await makeOat(api.orm, A.org.id, ['web:write']))).status).toBe(
        201,
      );
      const readOnly = await create({ product_id: productId }, await makeOat(api.orm, A.org.id, ['checkouts:read']));
      expect(readOnly.status).toBe(403);
      const products = await create({ product_id: productId }, await makeOat(api.orm, A.org.id, ['products:write']));
      expect(products.status).toBe(403);
      expect((await api.call('POST', '/api/v1/checkouts/', { body: { product_id: productId } })).status).toBe(401);
    });

    it('refuses read/write API keys (the spec gives checkouts to OATs)', async () => {
      const { productId } = await makeProduct(A.org.id);
      const res = await api.call('POST', '/api/v1/checkouts/', {
        headers: { 'x-service-api-key': A.apiKey },
        body: { product_id: productId },
      });
      expect(res.status).toBe(403);
      const list = await api.call('GET', '/api/v1/checkouts/', { headers: { 'x-service-api-key': A.apiKey } });
      expect(list.status).toBe(403);
    });

    it("lets a parent organization's OAT sell a direct sub-organization's product; the checkout is the child's", async () => {
      const parent = await makeTenant(api.orm);
      const child = await makeOrganization(api.orm, { parentId: parent.org.id });
      const grandchild = await makeOrganization(api.orm, { parentId: child.id });
      const childProduct = await makeProduct(child.id, { unitAmount: 700 });
      const c = await createOk({ product_id: childProduct.productId }, parent.oat);
      expect(c).toMatchObject({ organization_id: child.id, amount: 700 });
      expect(await events(c.id, 'checkout.created')).toEqual([{ organization_id: child.id, data: recordOf(c) }]);
      // Read back by the child; the parent was allowed only the creation.
      const childOat = await makeOat(api.orm, child.id, ['checkouts:read']);
      expect((await api.call('GET', `/api/v1/checkouts/${c.id}`, { token: childOat })).status).toBe(200);
      expect((await api.call('GET', `/api/v1/checkouts/${c.id}`, { token: parent.oat })).status).toBe(404);

      // A grandchild's product, or a child's for the child's parent API key, is not reachable: 404.
      const deep = await makeProduct(grandchild.id);
      const res = await create({ product_id: deep.productId }, parent.oat);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Product not found', code: 'not_found' });
      // The child may not use its parent's products.
      const parentProduct = await makeProduct(parent.org.id);
      expect((await create({ product_id: parentProduct.productId }, await makeOat(api.orm, child.id))).status).toBe(
        404,
      );
    });

    it("refuses another organization's product or price as not found", async () => {
      const theirs = await makeProduct(B.org.id);
      let res = await create({ product_id: theirs.productId });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Product not found', code: 'not_found' });
      res = await create({ product_price_id: theirs.priceId });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Price not found', code: 'not_found' });
    });
  });
});

describe('GET /api/v1/checkouts/', () => {
  it('lists the organization checkouts, newest first, filtered by status, product and customer', async () => {
    const tenant = await makeTenant(api.orm);
    const p1 = await makeProduct(tenant.org.id);
    const p2 = await makeProduct(tenant.org.id);
    const customerId = await makeCustomer(tenant.org.id);
    const a = await createOk({ product_id: p1.productId }, tenant.oat);
    const b = await createOk({ product_id: p2.productId, customer_id: customerId }, tenant.oat);
    const c = await createOk({ product_id: p1.productId }, tenant.oat);
    await sql(`update checkouts set status = 'expired' where id = ?`, [c.id]);

    const list = (q = '') => api.call('GET', `/api/v1/checkouts/${q}`, { token: tenant.oat });
    let res = await list();
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: any) => i.id)).toEqual([c.id, b.id, a.id]);
    expect(res.body.pagination).toEqual({ total_count: 3, max_page: 1 });
    expect(res.body.items[1]).toEqual(b);
    res = await list('?sorting=created_at&limit=2');
    expect(res.body.items.map((i: any) => i.id)).toEqual([a.id, b.id]);
    expect(res.body.pagination).toEqual({ total_count: 3, max_page: 2 });
    expect((await list(`?product_id=${p1.productId}`)).body.items.map((i: any) => i.id)).toEqual([c.id, a.id]);
    expect((await list(`?customer_id=${customerId}`)).body.items.map((i: any) => i.id)).toEqual([b.id]);
    expect((await list('?status=open')).body.items.map((i: any) => i.id)).toEqual([b.id, a.id]);
    expect((await list('?status=nope')).status).toBe(400);
    expect((await list('?sorting=name')).status).toBe(400);
    // Another organization sees none of them.
    expect(
      (await api.call('GET', `/api/v1/checkouts/?product_id=${p1.productId}`, { token: B.oat })).body.items,
    ).toEqual([]);
  });
});

describe('GET /api/v1/checkouts/:id', () => {
  it('returns the checkout with checkouts:read or web:read, and 404 to any other organization', async () => {
    const { productId } = await makeProduct(A.org.id);
    const c = await createOk({ product_id: productId });
    for (const scopes of [['checkouts:read'], ['web:read'], ['checkouts:write']]) {
      const res = await api.call('GET', `/api/v1/checkouts/${c.id}`, {
        token: await makeOat(api.orm, A.org.id, scopes),
      });
      expect({ scopes, status: res.status, body: res.body }).toEqual({ scopes, status: 200, body: c });
    }
    expect(
      (
        await api.call('GET', `/api/v1/checkouts/${c.id}`, {
          token: await makeOat(api.orm, A.org.id, ['products:read']),
        })
      ).status,
    ).toBe(403);
    const other = await api.call('GET', `/api/v1/checkouts/${c.id}`, { token: B.oat });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: 'Checkout not found', code: 'not_found' });
    expect((await api.call('GET', '/api/v1/checkouts/not-a-uuid', { token: A.oat })).status).toBe(404);
  });
});

describe('PATCH /api/v1/checkouts/:id', () => {
  const patch = (id: string, body: Record<string, unknown>, token = A.oat) =>
    api.call('PATCH', `/api/v1/checkouts/${id}`, { token, body });

  it('updates customer fields, urls and metadata of an open checkout, with an event', async () => {
    const { productId } = await makeProduct(A.org.id);
    const c = await createOk({ product_id: productId, customer_name: 'Old', metadata: { a: 1 } });
    const res = await patch(c.id, {
      customer_name: 'New Name',
      customer_email: 'new@example.com',
      customer_tax_id: CPF.formatted,
      success_url: 'https://shop.example.com/thanks',
      cancel_url: null,
      metadata: { b: 2 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...c,
      customer_name: 'New Name',
      customer_email: 'new@example.com',
      customer_tax_id: CPF.digits,
      success_url: 'https://shop.example.com/thanks',
      cancel_url: null,
      metadata: { b: 2 },
      updated_at: expect.stringMatching(ISO),
    });
    expect(await events(c.id, 'checkout.updated')).toEqual([{ organization_id: A.org.id, data: recordOf(res.body) }]);
    expect((await patch(c.id, { customer_tax_id: '123' })).status).toBe(422);
  });

  it('re-prices on quantity and discount changes', async () => {
    const { productId } = await makeProduct(A.org.id, { unitAmount: 2000 });
    const discountId = await makeDiscount(A.org.id, { basis_points: 2500 });
    const c = await createOk({ product_id: productId });
    let res = await patch(c.id, { quantity: 3 });
    expect(res.body).toMatchObject({ quantity: 3, subtotal_amount: 6000, discount_amount: 0, amount: 6000 });
    res = await patch(c.id, { discount_id: discountId });
    expect(res.body).toMatchObject({
      discount_id: discountId,
      subtotal_amount: 6000,
      discount_amount: 1500,
      amount: 4500,
    });
    res = await patch(c.id, { discount_id: null, quantity: 1 });
    expect(res.body).toMatchObject({ discount_id: null, subtotal_amount: 2000, discount_amount: 0, amount: 2000 });
    expect(await row(c.id)).toMatchObject({ amount: '2000', quantity: 1, discount_id: null });
    const ended = await makeDiscount(A.org.id, { ends_at: new Date(Date.now() - 1000) });
    res = await patch(c.id, { discount_id: ended });
    expect([res.status, res.body.code]).toEqual([422, 'discount_not_applicable']);
  });

  it('keeps the buyer-chosen unit amount of a free-price checkout when re-pricing', async () => {
    const { productId } = await makeProduct(A.org.id, { unitAmount: 0 });
    const c = await createOk({ product_id: productId, amount: 700 });
    const res = await patch(c.id, { quantity: 4 });
    expect(res.body).toMatchObject({ quantity: 4, subtotal_amount: 2800, amount: 2800 });
  });

  it('answers 409 checkout_not_open once the checkout is no longer open', async () => {
    const { productId } = await makeProduct(A.org.id);
    const c = await createOk({ product_id: productId });
    await sql(`update checkouts set status = 'succeeded' where id = ?`, [c.id]);
    const res = await patch(c.id, { customer_name: 'Late' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'The checkout is not open',
      detail: 'status: succeeded',
      code: 'checkout_not_open',
    });
    expect((await row(c.id)).customer_name).toBeNull();
    expect(await events(c.id, 'checkout.updated')).toEqual([]);
  });

  it("is 404 for another organization's checkout and 403 without a write scope", async () => {
    const { productId } = await makeProduct(A.org.id);
    const c = await createOk({ product_id: productId });
    expect((await patch(c.id, { customer_name: 'x' }, B.oat)).status).toBe(404);
    expect(
      (await patch(c.id, { customer_name: 'x' }, await makeOat(api.orm, A.org.id, ['checkouts:read']))).status,
    ).toBe(403);
    expect((await row(c.id)).customer_name).toBeNull();
  });
});

describe('GET /api/v1/checkouts/client/:client_secret (public)', () => {
  it("shows the buyer's view without the merchant's metadata", async () => {
    await sql(`update organizations set name = 'Loja A', avatar_url = 'https://img.example.com/a.png' where id = ?`, [
      A.org.id,
    ]);
    const { productId, priceId } = await makeProduct(A.org.id, {
      type: 'recurring',
      unitAmount: 2990,
      interval: 'month',
    });
    const customerId = await makeCustomer(A.org.id);
    const c = await createOk({
      product_id: productId,
      customer_id: customerId,
      customer_email: 'buyer@example.com',
      metadata: { internal_ref: 'secret-crm-id' },
      customer_metadata: { note: 'vip' },
    });
    const res = await api.call('GET', `/api/v1/checkouts/client/${c.client_secret}`);
    expect(res.status).toBe(200);
    const product = (await sql('select name from products where id = ?', [productId]))[0];
    expect(res.body).toEqual({
      id: c.id,
      status: 'open',
      amount: 2990,
      currency: 'BRL',
      subtotal_amount: 2990,
      discount_amount: 0,
      quantity: 1,
      product: { id: productId, name: product.name, description: 'A fine thing' },
      price: { id: priceId, type: 'recurring', interval: 'month', interval_count: 1, unit_amount: 2990 },
      customer_email: 'buyer@example.com',
      customer_name: null,
      success_url: null,
      cancel_url: null,
      expires_at: c.expires_at,
      allow_discount_codes: true,
      require_billing_address: false,
      // Who bills the renewals: the page states a Pix Automático mandate's terms (decision 0096).
      recurrence_billing: 'gateway',
      // A monthly price without a trial: the buyer may choose Pix Automático (the simulator offers it).
      pix_automatico_offered: true,
      is_business_customer: false,
      trial_interval: null,
      trial_interval_count: null,
      payment_method: null,
      gateway_payment_data: null,
      decline_reason: null,
      max_installments: 1,
      no_fees_installments: false,
      installment_options: [{ installments: 1, total: 2990, installment_amount: 2990 }],
      organization: { name: 'Loja A', slug: A.org.slug, avatar_url: 'https://img.example.com/a.png' },
    });
    const text = JSON.stringify(res.body);
    for (const hidden of ['secret-crm-id', 'vip', customerId, A.org.id, c.client_secret])
      expect(text).not.toContain(hidden);
  });

  it('lists each installment count with its Price-table total, the same the gateway charges', async () => {
    const { productId } = await makeProduct(A.org.id, { unitAmount: 100_000 });
    const c = await createOk({ product_id: productId });
    const res = await api.call('GET', `/api/v1/checkouts/client/${c.client_secret}`);
    expect(res.body.installment_options).toHaveLength(12);
    expect(res.body.installment_options[0]).toEqual({ installments: 1, total: 100_000, installment_amount: 100_000 });
    expect(res.body.installment_options[11]).toEqual({ installments: 12, total: 120_480, installment_amount: 10_040 });
    const free = await createOk({ product_id: productId, no_fees_installments: true });
    const noFees = await api.call('GET', `/api/v1/checkouts/client/${free.client_secret}`);
    expect(noFees.body.installment_options[11]).toEqual({ installments: 12, total: 100_000, installment_amount: 8334 });
  });

  it('is 404 for an unknown secret', async () => {
    for (const secret of [`cs_${'A'.repeat(43)}`, 'whatever']) {
      const res = await api.call('GET', `/api/v1/checkouts/client/${secret}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Checkout not found', code: 'not_found' });
    }
  });
});

describe('GET /api/v1/checkouts/client/:client_secret/seller-config (public)', () => {
  it('gives the seller id, installments and payment methods', async () => {
    const { productId } = await makeProduct(A.org.id, { unitAmount: 12000 });
    const c = await createOk({ product_id: productId, no_fees_installments: true });
    const res = await api.call('GET', `/api/v1/checkouts/client/${c.client_secret}/seller-config`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      seller_id: `sim_seller_${A.org.id.replaceAll('-', '')}`,
      checkout_id: c.id,
      currency: 'BRL',
      amount: 12000,
      max_installments: 12,
      no_fees_installments: true,
      payment_methods: ['credit_card', 'pix', 'boleto'],
    });
    const monthly = await makeProduct(A.org.id, { type: 'recurring', interval: 'month' });
    const m = await createOk({ product_id: monthly.productId });
    expect(
      (await api.call('GET', `/api/v1/checkouts/client/${m.client_secret}/seller-config`)).body.max_installments,
    ).toBe(1);
    expect((await api.call('GET', `/api/v1/checkouts/client/cs_${'x'.repeat(43)}/seller-config`)).status).toBe(404);
  });
});

describe('POST /api/v1/checkouts/:id/manual-renewal-checkout', () => {
  async function paidManualCheckout() {
    const { productId, priceId } = await makeProduct(A.org.id, { type: 'recurring', unitAmount: 3990 });
    const customerId = await makeCustomer(A.org.id);
    const c = await createOk({
      product_id: productId,
      recurrence_billing: 'manual',
      quantity: 2,
      customer_email: 'renew@example.com',
      success_url: 'https://shop.example.com/ok',
    });
    await sql(`update checkouts set status = 'succeeded', customer_id = ? where id = ?`, [customerId, c.id]);
    const subscriptionId = uuidv7();
    await sql(
      `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, checkout_id, status, recurrence_billing, amount,
         subtotal_amount, currency, current_period_start, current_period_end, created_at, workflow_id, billing_anchor)
       values (?, ?, ?, ?, ?, ?, 'active', 'manual', 7980, 7980, 'BRL', '2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z', now(), ?,
         '2025-01-01T00:00:00Z')`,
      [subscriptionId, A.org.id, customerId, productId, priceId, c.id, `subscription:${subscriptionId}`],
    );
    return { c, productId, priceId, customerId, subscriptionId };
  }

  it('opens a checkout for the next period of the subscription', async () => {
    const { c, productId, priceId, customerId, subscriptionId } = await paidManualCheckout();
    const res = await api.call('POST', `/api/v1/checkouts/${c.id}/manual-renewal-checkout`, { token: A.oat });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'open',
      product_id: productId,
      product_price_id: priceId,
      customer_id: customerId,
      subscription_id: subscriptionId,
      recurrence_billing: 'manual',
      quantity: 2,
      amount: 7980,
      customer_email: 'renew@example.com',
      success_url: 'https://shop.example.com/ok',
      metadata: { renewal_of_checkout_id: c.id, renewal_period_start: '2025-02-01T00:00:00.000Z' },
    });
    expect(res.body.id).not.toBe(c.id);
    const description = await temporal.workflow.getHandle(`checkout:${res.body.id}`).describe();
    expect(description.status.name).toBe('RUNNING');
  });

  it('is 409 for a checkout that is not a paid manual one, 404 for another organization', async () => {
    const { productId } = await makeProduct(A.org.id, { type: 'recurring' });
    const open = await createOk({ product_id: productId, recurrence_billing: 'manual' });
    let res = await api.call('POST', `/api/v1/checkouts/${open.id}/manual-renewal-checkout`, { token: A.oat });
    expect([res.status, res.body.code]).toEqual([409, 'conflict']);
    await sql(`update checkouts set status = 'succeeded' where id = ?`, [open.id]);
    res = await api.call('POST', `/api/v1/checkouts/${open.id}/manual-renewal-checkout`, { token: A.oat });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('The checkout has no renewable subscription');
    const { c } = await paidManualCheckout();
    expect((await api.call('POST', `/api/v1/checkouts/${c.id}/manual-renewal-checkout`, { token: B.oat })).status).toBe(
      404,
    );
  });
});

describe('when Temporal refuses the workflow', () => {
  it('answers 503; the checkout its event announced is closed (expired) by an event of its own, never deleted', async () => {
    const { productId } = await makeProduct(A.org.id);
    const broken = await startApi({ TEMPORAL_NAMESPACE: 'no-such-namespace' });
    try {
      const res = await broken.call('POST', '/api/v1/checkouts/', {
        token: A.oat,
        body: { product_id: productId, metadata: { probe: 'x503' } },
      });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('workflow_unavailable');
    } finally {
      await broken.close();
    }
    const [checkout] = await sql(`select id, status from checkouts where product_id = ?`, [productId]);
    expect(checkout).toMatchObject({ status: 'expired' });
    const events = await sql(`select type, data->>'status' as status from events where data->>'id' = ? order by seq`, [
      checkout.id,
    ]);
    expect(events).toEqual([
      { type: 'checkout.created', status: 'open' },
      { type: 'checkout.updated', status: 'expired' },
    ]);
    const read = await api.call('GET', `/api/v1/checkouts/${checkout.id}`, { token: A.oat });
    expect(read.body.status).toBe('expired');
  });
});

describe('tenant isolation', () => {
  it('never shows another organization a checkout', async () => {
    const { productId } = await makeProduct(A.org.id);
    const c = await createOk({ product_id: productId });
    const other = await makeApiKey(api.orm, B.org.id, { scopes: ['admin'] });
    for (const [method, url, body] of [
      ['GET', `/api/v1/checkouts/${c.id}`, undefined],
      ['PATCH', `/api/v1/checkouts/${c.id}`, { customer_name: 'x' }],
      ['POST', `/api/v1/checkouts/${c.id}/manual-renewal-checkout`, undefined],
    ] as const) {
      expect({ method, status: (await api.call(method, url, { token: B.oat, body })).status }).toEqual({
        method,
        status: 404,
      });
      const viaKey = await api.call(method, url, { headers: { 'x-service-api-key': other.key }, body });
      expect({ method, status: viaKey.status }).toEqual({ method, status: 404 });
    }
  });
});
