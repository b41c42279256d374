import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import { CALLBACK_SIGNATURE_HEADER, signCallback } from '../../gateway/callback-signature.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeCheckout as makeFixture, type CheckoutFixtureOptions } from '../helpers/checkouts.ts';
import { TEST_TASK_QUEUE } from '../helpers/env.ts';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';
import { makeOat } from '../helpers/fixtures.ts';
import { expectNothingWritten, type Watched } from '../helpers/unchanged.ts';

/**
 * POST /api/v1/checkouts/client/:client_secret/confirm-sdk and POST /api/v1/gateway/callbacks over
 * HTTPS: the request rules, discount codes at payment time, recurring prices, signed callbacks.
 */
let api: TestApi;
let sim: SimulatedGateway;
let temporal: Client;
beforeAll(async () => {
  api = await startApi();
  temporal = createTemporalClient(api.config);
  sim = api.gateway as SimulatedGateway;
});
afterAll(async () => {
  await sim.settleCallbacks();
  await temporal.connection.close();
  await api.close();
});

const SubscriptionId = defineSearchAttributeKey('SubscriptionId', 'KEYWORD');
const card = (installments = 1) => ({
  number: '4111111111111111',
  holder_name: 'Ana Souza',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
  installments,
});

const makeCheckout = (options: CheckoutFixtureOptions = {}) => makeFixture(api.orm, temporal, options);

type Fixture = Awaited<ReturnType<typeof makeCheckout>>;
const confirm = (c: Fixture, body: unknown) =>
  api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, { body });
const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);

describe('confirm-sdk: request rules', () => {
  it('an unknown client_secret is a 404', async () => {
    const res = await api.call('POST', `/api/v1/checkouts/client/cs_${'x'.repeat(43)}/confirm-sdk`, {
      body: { payment_method: 'credit_card', card: card() },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Checkout not found', code: 'not_found' });
  });

  it.each([
    ['no payment_method', { card: card() }],
    ['an unknown payment_method', { payment_method: 'paypal' }],
    ['13 installments', { payment_method: 'credit_card', card: card(13) }],
    ['a card number with letters', { payment_method: 'credit_card', card: { ...card(), number: '4111abcd11111111' } }],
    ['an invalid email', { payment_method: 'pix', customer_email: 'nope' }],
  ])('%s is a 400', async (_label, body) => {
    const c = await makeCheckout();
    const res = await confirm(c, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });

  it('credit_card without a card, or a card with pix, is a 400', async () => {
    const c = await makeCheckout();
    const noCard = await confirm(c, { payment_method: 'credit_card' });
    expect(noCard.status).toBe(400);
    expect(noCard.body).toEqual({
      error: 'card or card_token is required when payment_method is credit_card',
      code: 'invalid_request',
    });
    const pixWithCard = await confirm(c, { payment_method: 'pix', card: card() });
    expect(pixWithCard.status).toBe(400);
  });

  it('a checkout without a customer needs customer_email (422: the checkout lacks it, the request is valid)', async () => {
    const c = await makeCheckout({ email: null });
    const res = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'customer_email is required',
      detail: 'The checkout has no customer yet: send customer_email',
      code: 'customer_email_required',
    });
    // The fuzz run's case: a pix, the smallest valid body.
    const pix = await confirm(c, { payment_method: 'pix' });
    expect([pix.status, pix.body.code]).toEqual([422, 'customer_email_required']);
    const ok = await confirm(c, { payment_method: 'credit_card', customer_email: 'late@example.com', card: card() });
    expect(ok.status).toBe(200);
    const [customer] = await sql('select email from customers where organization_id = ?', [c.organizationId]);
    expect(customer).toEqual({ email: 'late@example.com' });
  });

  it('an invalid customer_tax_id is a 422; boleto needs a name and a tax id', async () => {
    const c = await makeCheckout();
    const badTax = await confirm(c, { payment_method: 'pix', customer_tax_id: '111.111.111-11' });
    expect([badTax.status, badTax.body.code]).toEqual([422, 'invalid_tax_id']);
    expect(badTax.body.error).toBe('Invalid customer_tax_id');
    const boleto = await confirm(c, { payment_method: 'boleto', customer_name: 'Ana' });
    expect([boleto.status, boleto.body.code]).toEqual([422, 'customer_tax_id_required']);
    expect(boleto.body.error).toBe('customer_tax_id is required for boleto');
    expect((await sql('select status from checkouts where id = ?', [c.id]))[0]).toEqual({ status: 'open' });
  });

  it('a monthly recurring price accepts only 1 installment (400); a yearly one up to 12', async () => {
    const monthly = await makeCheckout({ recurring: 'month' });
    const res = await confirm(monthly, { payment_method: 'credit_card', card: card(2) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Too many installments',
      detail: 'This price accepts at most 1 installment',
      code: 'invalid_request',
    });
    const yearly = await makeCheckout({ recurring: 'year', amount: 120_000 });
    const ok = await confirm(yearly, { payment_method: 'credit_card', card: card(12) });
    expect(ok.status).toBe(200);
    expect(ok.body.gateway_payment_data.installments).toBe(12);
  });
});

describe('confirm-sdk: what the buyer pays', () => {
  it('shows the installments with interest beside the price, in the answer and on the sale', async () => {
    const c = await makeCheckout({ amount: 4_990 });
    const res = await confirm(c, { payment_method: 'credit_card', card: card(3) });
    expect(res.status).toBe(200);
    // By hand: PMT = 4990 · 0.0299 / (1 − 1.0299⁻³) = 1763.78 → 1764 a month, 3 × 1764 = 5292 in all.
    expect(res.body).toMatchObject({ amount: 4_990, installments: 3, installment_amount: 1_764, total_amount: 5_292 });
    const [transaction] = await sql('select amount from transactions where checkout_id = ?', [c.id]);
    expect(Number(transaction!.amount)).toBe(5_292);
    const oat = await makeOat(api.orm, c.organizationId);
    const sales = await api.call('GET', '/api/v1/sales/', { token: oat });
    expect(sales.body.items).toEqual([
      expect.objectContaining({ amount: 4_990, installments: 3, installment_amount: 1_764, total_amount: 5_292 }),
    ]);
  });

  it('a single installment or pix pays the price', async () => {
    const c = await makeCheckout({ amount: 4_990 });
    const res = await confirm(c, { payment_method: 'credit_card', card: card(1) });
    expect(res.body).toMatchObject({ amount: 4_990, installments: 1, installment_amount: 4_990, total_amount: 4_990 });
  });
});

describe('confirm-sdk: recurring prices', () => {
  it('a paid monthly checkout starts an active subscription with its gateway subscription', async () => {
    const c = await makeCheckout({ recurring: 'month', amount: 3_990 });
    const res = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
    const [sub] = await sql('select * from subscriptions where checkout_id = ?', [c.id]);
    expect(sub).toMatchObject({
      status: 'active',
      recurrence_billing: 'gateway',
      gateway_subscription_id: expect.stringMatching(/.+/),
      amount: '3990',
      price_id: c.priceId,
    });
    const [sale] = await sql('select subscription_id from sales where checkout_id = ?', [c.id]);
    expect(sale).toEqual({ subscription_id: sub!.id });
    const [checkout] = await sql('select subscription_id from checkouts where id = ?', [c.id]);
    expect(checkout).toEqual({ subscription_id: sub!.id });
    const types = (
      await sql<{ type: string }>('select type from events where organization_id = ?', [c.organizationId])
    ).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['subscription.created', 'subscription.active', 'sale.paid']));
    const description = await temporal.workflow.getHandle(checkoutWorkflowId(c.id)).describe();
    expect(description.typedSearchAttributes.get(SubscriptionId)).toBe(sub!.id);
  });

  it('a checkout with a trial starts a trialing subscription', async () => {
    const c = await makeCheckout({ recurring: 'month', trialDays: 7 });
    const res = await confirm(c, { payment_method: 'credit_card', card: card() });
    expect(res.status).toBe(200);
    const [sub] = await sql('select status, trial_end, current_period_end from subscriptions where checkout_id = ?', [
      c.id,
    ]);
    expect(sub!.status).toBe('trialing');
    expect(new Date(sub!.trial_end).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    const types = (
      await sql<{ type: string }>('select type from events where organization_id = ?', [c.organizationId])
    ).map((e) => e.type);
    expect(types).toContain('subscription.created');
    expect(types).not.toContain('subscription.active');
  });
});

describe('confirm-sdk: discount codes', () => {
  async function makeDiscount(organizationId: string, code: string, extra: { maxRedemptions?: number } = {}) {
    const id = uuidv7();
    await sql(
      `insert into discounts (id, organization_id, name, code, type, basis_points, duration, max_redemptions, created_at)
       values (?, ?, 'Ten off', ?, 'percentage', 1000, 'once', ?, now())`,
      [id, organizationId, code, extra.maxRedemptions ?? null],
    );
    return id;
  }

  it('a valid code lowers the amount charged and is redeemed once', async () => {
    const c = await makeCheckout({ amount: 10_000 });
    const discountId = await makeDiscount(c.organizationId, 'SAVE10');
    const res = await confirm(c, { payment_method: 'credit_card', discount_code: 'save10', card: card() });
    expect(res.status).toBe(200);
    expect(res.body.amount).toBe(9_000);
    const [sale] = await sql(
      'select subtotal_amount, discount_amount, amount, discount_id from sales where checkout_id = ?',
      [c.id],
    );
    expect(sale).toEqual({
      subtotal_amount: '10000',
      discount_amount: '1000',
      amount: '9000',
      discount_id: discountId,
    });
    const [discount] = await sql('select redemptions_count from discounts where id = ?', [discountId]);
    expect(discount).toEqual({ redemptions_count: 1 });
    const [captured] = await sql<{ amount: string }>(
      `select l.amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id where t.reference = ?`,
      [c.id],
    );
    expect(captured).toEqual({ amount: '9000' });
  });

  it('an unknown code is a 422; a checkout that refuses codes is a 422; an exhausted code is a 422', async () => {
    const c = await makeCheckout();
    const unknown = await confirm(c, { payment_method: 'credit_card', discount_code: 'NOPE', card: card() });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ error: 'Unknown discount code', code: 'discount_not_found' });

    const closed = await makeCheckout({ allowDiscountCodes: false });
    await makeDiscount(closed.organizationId, 'SAVE10');
    const refused = await confirm(closed, { payment_method: 'credit_card', discount_code: 'SAVE10', card: card() });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('discount_codes_not_allowed');

    const first = await makeCheckout();
    await makeDiscount(first.organizationId, 'ONCE', { maxRedemptions: 1 });
    expect((await confirm(first, { payment_method: 'credit_card', discount_code: 'ONCE', card: card() })).status).toBe(
      200,
    );
    // Another checkout of the same organization finds the code used up.
    const secondId = uuidv7();
    const clientSecret = `cs_${randomBytes(32).toString('base64url').slice(0, 43)}`;
    await sql(
      `insert into checkouts (id, organization_id, status, client_secret, workflow_id, product_id, product_price_id, currency,
         subtotal_amount, amount, customer_email, expires_at, created_at, updated_at)
       values (?, ?, 'open', ?, ?, ?, ?, 'BRL', 10000, 10000, 'x@example.com', now() + interval '10 minutes', now(), now())`,
      [secondId, first.organizationId, clientSecret, checkoutWorkflowId(secondId), first.productId, first.priceId],
    );
    await temporal.workflow.start('checkoutWorkflow', {
      workflowId: checkoutWorkflowId(secondId),
      taskQueue: TEST_TASK_QUEUE,
      args: [{ checkoutId: secondId, organizationId: first.organizationId }],
    });
    const exhausted = await api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', discount_code: 'ONCE', card: card() },
    });
    expect(exhausted.status).toBe(422);
    expect(exhausted.body).toEqual({ error: 'Discount has no redemptions left', code: 'discount_exhausted' });
  });
});

describe('gateway callbacks', () => {
  const post = (body: string, signature?: string) =>
    api.call('POST', '/api/v1/gateway/callbacks', {
      raw: body,
      headers: { 'content-type': 'application/json', ...(signature ? { [CALLBACK_SIGNATURE_HEADER]: signature } : {}) },
    });
  const notice = (id = `cb_${uuidv7()}`) =>
    JSON.stringify({
      id,
      type: 'transaction.updated',
      transactionId: 'tx_unknown',
      status: 'succeeded',
      occurredAt: new Date().toISOString(),
    });

  /** The callbacks recorded under the notice's id: a refused one records none. */
  const recorded = (body: string): Watched[] => [
    ['select * from gateway_callbacks where id = ?', [(JSON.parse(body) as { id: string }).id]],
  ];

  it('an unsigned, wrongly signed or stale callback is a 401, and is not recorded', async () => {
    const body = notice();
    const refused = (raw: string, signature?: string) =>
      expectNothingWritten(sql, recorded(raw), () => post(raw, signature));
    expect((await refused(body)).status).toBe(401);
    const wrong = await refused(body, signCallback('another-secret-0123456789', body, new Date()));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid gateway signature', code: 'unauthorized' });
    const stale = await refused(
      body,
      signCallback(api.config.gatewayCallbackSecret, body, new Date(Date.now() - 3_600_000)),
    );
    expect(stale.status).toBe(401);
    const tampered = await refused(
      body.replace('succeeded', 'failed'),
      signCallback(api.config.gatewayCallbackSecret, body, new Date()),
    );
    expect(tampered.status).toBe(401);
  });

  it('a signed callback is acknowledged once; a repeat is recognized as a duplicate', async () => {
    const id = `cb_${uuidv7()}`;
    const body = notice(id);
    const sign = () => signCallback(api.config.gatewayCallbackSecret, body, new Date());
    const first = await post(body, sign());
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, duplicate: false });
    const again = await post(body, sign());
    expect(again.body).toEqual({ received: true, duplicate: true });
    expect(await sql('select type from gateway_callbacks where id = ?', [id])).toEqual([
      { type: 'transaction.updated' },
    ]);
  });

  it('a signed callback with a malformed body is a 400, and is not recorded', async () => {
    const body = JSON.stringify({ id: `cb_${uuidv7()}` });
    const sign = signCallback(api.config.gatewayCallbackSecret, body, new Date());
    const res = await expectNothingWritten(sql, recorded(body), () => post(body, sign));
    expect(res.status).toBe(400);
  });
});
