import { cardPaymentsOf } from '../../gateway/capabilities.ts';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { TestApi } from '../helpers/api.ts';
import { mercadoPagoTestbed } from '../helpers/mercadopago-testbed.ts';
import { makeCheckout, waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { signedNotice } from '../helpers/mercadopago-mock.ts';
import { subscriptionWhen, advancePastPeriodEnd } from '../helpers/subscriptions.ts';
import { waitFor } from '../helpers/processes.ts';
import { brazilToday, invoiceChargeKey } from '../../domain/invoices.ts';

/**
 * The whole checkout on the Mercado Pago adapter (issue 24 §5): the API and a worker of this file's own
 * task queue, both in this process with GATEWAY=mercadopago, their calls to Mercado Pago answered by a
 * stateful fake over undici's MockAgent (test/helpers/mercadopago-fake.ts). Card, pix, boleto, a
 * refund and a renewal's charge, with the assertions the simulator's tests make: statuses, amounts,
 * the sale, and what reached the gateway (once).
 */
const QUEUE = 'billing-test-mercadopago';
const WEBHOOK_SECRET = 'mp-webhook-secret-of-this-test';
const { mp, stack, sql } = mercadoPagoTestbed(QUEUE, WEBHOOK_SECRET);
let api: TestApi;
let temporal: Client;
beforeAll(() => {
  ({ api, temporal } = stack);
});
const confirm = (clientSecret: string, body: unknown) =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, { body });
const paymentsOf = (reference: string) => [...mp.payments.values()].filter((p) => p.metadata?.reference === reference);

describe('Mercado Pago: card', () => {
  it("pays with the browser's token as it is, naming its payment method, issuer and payer; a one-time sale keeps no card", async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 19_990, taskQueue: QUEUE });
    await sql('update checkouts set customer_name = ?, customer_tax_id = ? where id = ?', [
      'Ana Souza',
      '52998224725',
      c.id,
    ]);
    const card = mp.cardToken();
    const res = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: { ...card, installments: 3 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', installments: 3 });

    const [payment, ...more] = paymentsOf(c.id);
    expect(more).toEqual([]);
    expect(payment).toMatchObject({ status: 'approved', transaction_amount: 199.9, installments: 3 });
    const paid = mp.requests.find(
      (r) => r.method === 'POST' && r.path === '/v1/payments' && r.body?.metadata?.reference === c.id,
    )!;
    // The recurring-charges guide's first payment: the browser's token (its security code in it) and
    // payment_method_id, issuer_id, payer.email and identification (decision 0074).
    expect(paid.body).toMatchObject({
      token: card.token,
      payment_method_id: 'master',
      issuer_id: 24,
      installments: 3,
      payer: {
        email: expect.stringMatching(/@example\.com$/),
        first_name: 'Ana',
        last_name: 'Souza',
        identification: { type: 'CPF', number: '52998224725' },
      },
    });
    expect(paid.body).not.toHaveProperty('binary_mode');
    // Nothing made of the card before the charge, and a one-time sale keeps none.
    expect(mp.requests.filter((r) => r.path === '/v1/card_tokens' || /\/cards$/.test(r.path))).toEqual([]);
    const [t] = await sql(
      'select status, amount::int, gateway_transaction_id, card from transactions where checkout_id = ?',
      [c.id],
    );
    expect(t).toMatchObject({ status: 'succeeded', gateway_transaction_id: String(payment!.id) });
    expect(t.card).toMatchObject({ brand: 'mastercard', first4: '5031', last4: '6351' });
    const [sale] = await sql('select status, amount::int from sales where checkout_id = ?', [c.id]);
    expect(sale).toEqual({ status: 'paid', amount: 19_990 });
  });

  it('a recurring sale keeps the card after its first payment, with the customer, for the renewals', async () => {
    const c = await makeCheckout(api.orm, temporal, {
      recurring: 'month',
      recurrenceBilling: 'manual',
      amount: 4_990,
      taskQueue: QUEUE,
    });
    const card = mp.cardToken();
    const res = await confirm(c.clientSecret, { payment_method: 'credit_card', card_token: card });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded' });

    const posts = mp.requests.filter((r) => r.method === 'POST');
    const charged = posts.findIndex((r) => r.path === '/v1/payments' && r.body?.metadata?.reference === c.id);
    const kept = posts.findIndex((r) => /^\/v1\/customers\/[^/]+\/cards$/.test(r.path) && r.body?.token === card.token);
    expect(posts[charged]!.body).toMatchObject({ token: card.token, payment_method_id: 'master' });
    // Kept after the approved charge, under the checkout's own key.
    expect(kept).toBeGreaterThan(charged);
    expect(posts[kept]!.key).toMatch(new RegExp(`^checkout:${c.id}:keep-card:\\d+:card$`));
    const [s] = await sql('select card_token_id from subscriptions where checkout_id = ?', [c.id]);
    const keptCard = mp.keptCards().find((k) => s.card_token_id.includes(`:${k.cardId}:`))!;
    expect(s.card_token_id).toBe(`mpcard:${keptCard.customerId}:${keptCard.cardId}:master:24`);
  });

  it('a card the gateway will not keep leaves the sale paid and the subscription with no card', async () => {
    const c = await makeCheckout(api.orm, temporal, {
      recurring: 'month',
      recurrenceBilling: 'manual',
      amount: 4_990,
      taskQueue: QUEUE,
    });
    const card = mp.cardToken();
    mp.refuseNextCardKeeping();
    const res = await confirm(c.clientSecret, { payment_method: 'credit_card', card_token: card });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded' });
    const [s] = await sql('select status, card_token_id from subscriptions where checkout_id = ?', [c.id]);
    expect(s).toEqual({ status: 'active', card_token_id: null });
    const [sale] = await sql('select status from sales where checkout_id = ?', [c.id]);
    expect(sale).toEqual({ status: 'paid' });
  });

  it('a declined card is a 422 with its reason, and the checkout stays open for another try', async () => {
    const c = await makeCheckout(api.orm, temporal, { taskQueue: QUEUE });
    const res = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: mp.cardToken('OTHE'),
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'payment_declined' });
    expect((await sql('select status from checkouts where id = ?', [c.id]))[0]).toEqual({ status: 'open' });
    const again = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: mp.cardToken(),
    });
    expect([again.status, again.body.status]).toEqual([200, 'succeeded']);
  });

  it("waits thirty minutes, not the review's days, for the buyer's 3-D Secure challenge", async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 9_990, taskQueue: QUEUE });
    const before = Date.now();
    const res = await confirm(c.clientSecret, { payment_method: 'credit_card', card_token: mp.cardToken('3DSC') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'confirmed',
      gateway_payment_data: { status: 'pending', three_ds: { creq: expect.any(String) } },
    });
    const until = Date.parse(res.body.gateway_payment_data.review.until);
    expect(until).toBeGreaterThan(before + 29 * 60_000);
    expect(until).toBeLessThan(Date.now() + 31 * 60_000);
  });
});

describe('Mercado Pago: pix and boleto', () => {
  it("pix: the QR code is shown; paid at the bank, the gateway's word makes the sale", async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 5_000, taskQueue: QUEUE });
    const res = await confirm(c.clientSecret, { payment_method: 'pix' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'confirmed' });
    const id = res.body.gateway_payment_data.transaction_id as string;
    expect(res.body.gateway_payment_data.pix.qr_code).toBe(`00020126pix${id}`);
    // Mercado Pago's own page of the pix (ticket_url), for a buyer away from this page.
    expect(res.body.gateway_payment_data.pix.url).toMatch(
      new RegExp(`^https://www\\.mercadopago\\.com\\.br/payments/${id}/ticket`),
    );
    expect(mp.payments.get(id)).toMatchObject({ status: 'pending', transaction_amount: 50 });
    // Issued with the payer's e-mail, and an expiry the fake found at least 30 minutes ahead of its clock.
    const issued = mp.requests.find(
      (r) => r.body?.payment_method_id === 'pix' && r.body?.metadata?.reference === c.id,
    )!;
    expect(issued.body!.payer).toMatchObject({ email: expect.stringMatching(/@example\.com$/) });

    mp.pay(id);
    // Mercado Pago's signed notification: the route reads the payment and wakes the checkout.
    const notice = await api.call('POST', `/api/v1/gateway/mercadopago/notifications?data.id=${id}&type=payment`, {
      body: { action: 'payment.updated', data: { id }, type: 'payment' },
      headers: signedNotice(id, WEBHOOK_SECRET),
    });
    expect(notice.status).toBe(200);
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    const [sale] = await sql('select status, amount::int from sales where checkout_id = ?', [c.id]);
    expect(sale).toEqual({ status: 'paid', amount: 5_000 });
  });

  it("boleto: issued with the buyer's CPF and address, its digitable line shown", async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 12_345, taskQueue: QUEUE });
    const res = await confirm(c.clientSecret, {
      payment_method: 'boleto',
      customer_name: 'Ana Souza',
      customer_tax_id: '529.982.247-25',
      customer_billing_address: {
        line1: 'Av. Paulista, 1578 - Bela Vista',
        city: 'São Paulo',
        state: 'SP',
        postal_code: '01310-200',
        country: 'BR',
      },
    });
    expect(res.status).toBe(200);
    const data = res.body.gateway_payment_data;
    expect(data.boleto.digitable_line).toMatch(/^2379338029/);
    const issued = mp.requests.find(
      (r) => r.body?.payment_method_id === 'bolbradesco' && r.body?.metadata?.reference === c.id,
    )!;
    expect(issued.body).toMatchObject({
      transaction_amount: 123.45,
      payer: {
        first_name: 'Ana',
        identification: { type: 'CPF', number: '52998224725' },
        address: {
          zip_code: '01310200',
          street_name: 'Av. Paulista',
          street_number: '1578',
          neighborhood: 'Bela Vista',
          federal_unit: 'SP',
        },
      },
    });
  });
});

describe('Mercado Pago: what its reference requires (decision 0066)', () => {
  it('a notice signed with ts in milliseconds, as the webhooks page words it, settles the pix', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 4_000, taskQueue: QUEUE });
    const res = await confirm(c.clientSecret, { payment_method: 'pix' });
    expect(res.status).toBe(200);
    const id = res.body.gateway_payment_data.transaction_id as string;
    mp.pay(id);
    const notice = await api.call('POST', `/api/v1/gateway/mercadopago/notifications?data.id=${id}&type=payment`, {
      body: { action: 'payment.updated', data: { id }, type: 'payment' },
      headers: signedNotice(id, WEBHOOK_SECRET, Date.now()),
    });
    expect(notice.status).toBe(200);
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
  });

  const address = {
    line1: 'Av. Paulista, 1578 - Bela Vista',
    city: 'São Paulo',
    state: 'SP',
    postal_code: '01310-200',
    country: 'BR',
  };
  it.each([
    ['a one-word name', { customer_name: 'Ana' }, 'customer_name needs a first and a last name for boleto'],
    [
      'an address without its postal code',
      { customer_billing_address: { ...address, postal_code: undefined } },
      'customer_billing_address needs postal_code for boleto',
    ],
    [
      'an address without its state',
      { customer_billing_address: { ...address, state: undefined } },
      'customer_billing_address needs state for boleto',
    ],
  ])('boleto: %s is a clear 422, and Mercado Pago is never called', async (_, change, message) => {
    const c = await makeCheckout(api.orm, temporal, { amount: 2_000, taskQueue: QUEUE });
    const res = await confirm(c.clientSecret, {
      payment_method: 'boleto',
      customer_name: 'Ana Souza',
      customer_tax_id: '529.982.247-25',
      customer_billing_address: address,
      ...change,
    });
    expect([res.status, res.body.code, res.body.error]).toEqual([422, 'boleto_payer_incomplete', message]);
    expect(mp.requests.filter((r) => r.body?.metadata?.reference === c.id)).toEqual([]);
    expect((await sql('select status from checkouts where id = ?', [c.id]))[0]).toEqual({ status: 'open' });
  });

  it('card: a customer created by a racing checkout (error 101) is found, and the card is kept with it', async () => {
    const email = `racing-${Date.now()}@example.com`;
    const c = await makeCheckout(api.orm, temporal, {
      amount: 3_000,
      email,
      recurring: 'month',
      recurrenceBilling: 'manual',
      taskQueue: QUEUE,
    });
    mp.raceCustomer(email);
    const res = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: mp.cardToken(),
    });
    expect([res.status, res.body.status]).toEqual([200, 'succeeded']);
    const created = mp.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/customers' && r.body?.email === email,
    );
    expect(created).toHaveLength(1); // refused with 101: the racing caller's customer is the one
    const kept = mp.requests.find((r) => /\/cards$/.test(r.path) && r.key?.startsWith(`checkout:${c.id}:keep-card`))!;
    expect(kept.path).toMatch(/^\/v1\/customers\/[^/]+-cust\/cards$/);
    const [s] = await sql('select card_token_id from subscriptions where checkout_id = ?', [c.id]);
    expect(s.card_token_id).toMatch(/^mpcard:[^:]+-cust:card/);
  });
});

describe('Mercado Pago: refunds and renewals', () => {
  it('refunds part of a card sale, then the rest, in reais at the gateway', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 10_000, taskQueue: QUEUE });
    expect((await confirm(c.clientSecret, { payment_method: 'credit_card', card_token: mp.cardToken() })).status).toBe(
      200,
    );
    const [sale] = await sql('select id from sales where checkout_id = ?', [c.id]);
    const oat = await makeOat(api.orm, c.organizationId, ['web:write', 'web:read']);
    const partial = await api.call('POST', '/api/v1/refunds/', {
      token: oat,
      body: { sale_id: sale.id, amount: 2_500 },
    });
    expect(partial.body).toMatchObject({ amount: 2_500, status: 'succeeded' });
    const rest = await api.call('POST', '/api/v1/refunds/', { token: oat, body: { sale_id: sale.id } });
    expect(rest.body).toMatchObject({ amount: 7_500, status: 'succeeded' });
    const [payment] = paymentsOf(c.id);
    expect(payment).toMatchObject({ status: 'refunded', transaction_amount_refunded: 100 });
    const refunds = mp.requests
      .filter((r) => r.path === `/v1/payments/${payment!.id}/refunds`)
      .map((r) => r.body!.amount);
    expect(refunds).toEqual([25, 75]);
  });

  it('a manual monthly subscription renews by charging the kept card with a fresh token, once', async () => {
    const org = await makeOrganization(api.orm);
    const c = await makeCheckout(api.orm, temporal, {
      organizationId: org.id,
      recurring: 'month',
      recurrenceBilling: 'manual',
      amount: 4_990,
      taskQueue: QUEUE,
    });
    expect((await confirm(c.clientSecret, { payment_method: 'credit_card', card_token: mp.cardToken() })).status).toBe(
      200,
    );
    const [row] = await sql('select id, current_period_end from subscriptions where checkout_id = ?', [c.id]);
    const s = { id: row.id as string, oat: await makeOat(api.orm, org.id) };
    await advancePastPeriodEnd(api, s, row.current_period_end);
    const body = await subscriptionWhen(api, s, (b) => b.period_number === 2);
    expect(body.charges).toEqual([expect.objectContaining({ period_number: 2, amount: 4_990, outcome: 'succeeded' })]);

    // A merchant-initiated charge of the kept card, as Mercado Pago's automatic payments take one
    // (decision 0074): a token minted from the card without its security code, the card's customer as
    // the payer, its payment method and issuer, and the subscription messaging (buyer not present).
    const [first] = mp.requests.filter((r) => r.path === '/v1/payments' && r.body?.metadata?.reference === c.id);
    const renewals = mp.requests.filter((r) => r.path === '/v1/payments' && r.body?.metadata?.reference === s.id);
    expect(renewals).toHaveLength(1);
    const renewal = renewals[0]!;
    expect(renewal.body!.token).not.toBe(first!.body!.token);
    const [kept] = await sql('select card_token_id from subscriptions where id = ?', [s.id]);
    const [, customerId, cardId] = (kept.card_token_id as string).split(':');
    expect(renewal.body).toMatchObject({
      payer: { type: 'customer', id: customerId },
      payment_method_id: 'master',
      issuer_id: 24,
      installments: 1,
      binary_mode: true,
      point_of_interaction: {
        type: 'SUBSCRIPTIONS',
        transaction_data: {
          first_time_use: false,
          subscription_id: s.id,
          subscription_sequence: { number: 2 },
          invoice_period: { period: 1, type: 'monthly' },
          billing_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          user_present: false,
        },
      },
    });
    const minted = mp.requests.filter((r) => r.path === '/v1/card_tokens' && r.key === `${renewal.key}:token`);
    expect(minted.map((r) => r.body)).toEqual([{ customer_id: customerId, card_id: cardId }]);

    // An extra charge (an invoice due today) charges the same kept card with a payment of its own.
    const invoice = await api.call('POST', `/api/v1/subscriptions/${s.id}/invoices`, {
      body: { amount: 1_500, due_date: brazilToday(new Date()), description: 'Setup' },
      token: s.oat,
    });
    expect(invoice.status).toBe(201);
    const paid = await waitFor(
      async () => {
        const read = await api.call('GET', `/api/v1/subscriptions/${s.id}/invoices/${invoice.body.id}`, {
          token: s.oat,
        });
        return read.body.status === 'paid' && read.body;
      },
      { what: 'the extra charge to be paid', timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(paid).toMatchObject({ amount: 1_500, status: 'paid' });
    const extra = mp.requests.filter((r) => r.path === '/v1/payments' && r.key === invoiceChargeKey(invoice.body.id));
    expect(extra.map((r) => [r.body!.transaction_amount, r.body!.payer])).toEqual([[15, renewal!.body!.payer]]);
  });
});

/**
 * Issue 33 §1, with a fake that follows the reference: an instalment payment keeps what was asked in
 * `transaction_amount` (R$ 100,00) and the buyer's interest in `transaction_details.total_paid_amount`
 * (R$ 105,99, the fake account's rates, not the engine's), and a refund above `transaction_amount` is refused.
 */
describe('Mercado Pago: instalment interest and ambiguous answers', () => {
  const payInThree = async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 10_000, taskQueue: QUEUE });
    const res = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: { ...mp.cardToken(), installments: 3 },
    });
    const [payment] = paymentsOf(c.id);
    return { c, res, payment: payment! };
  };

  it('answers the buyer (and records) what the gateway charged, not the engine’s own interest estimate', async () => {
    const { c, res, payment } = await payInThree();
    expect(payment).toMatchObject({ transaction_amount: 100, transaction_details: { total_paid_amount: 105.99 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      amount: 10_000,
      installments: 3,
      installment_amount: 3_533,
      total_amount: 10_599,
    });
    const [t] = await sql('select amount::int, captured_amount::int from transactions where checkout_id = ?', [c.id]);
    expect(t).toEqual({ amount: 10_599, captured_amount: 10_000 });
    const [sale] = await sql('select id from sales where checkout_id = ?', [c.id]);
    const oat = await makeOat(api.orm, c.organizationId, ['web:read']);
    const read = await api.call('GET', `/api/v1/sales/${sale.id}`, { token: oat });
    expect(read.body).toMatchObject({ amount: 10_000, installment_amount: 3_533, total_amount: 10_599 });
  });

  it('sizes refunds from transaction_amount: a part, then the rest, and the records end refunded', async () => {
    const { c, payment } = await payInThree();
    const [sale] = await sql('select id from sales where checkout_id = ?', [c.id]);
    const oat = await makeOat(api.orm, c.organizationId, ['web:write', 'web:read']);
    const tooMuch = await api.call('POST', '/api/v1/refunds/', {
      token: oat,
      body: { sale_id: sale.id, amount: 10_001 },
    });
    expect(tooMuch.status).toBe(422);
    const part = await api.call('POST', '/api/v1/refunds/', { token: oat, body: { sale_id: sale.id, amount: 4_000 } });
    expect(part.body).toMatchObject({ amount: 4_000, status: 'succeeded' });
    const rest = await api.call('POST', '/api/v1/refunds/', { token: oat, body: { sale_id: sale.id } });
    expect(rest.body).toMatchObject({ amount: 6_000, status: 'succeeded' });
    expect(payment).toMatchObject({ status: 'refunded', transaction_amount_refunded: 100 });
    const asked = mp.requests.filter((r) => r.path === `/v1/payments/${payment.id}/refunds`).map((r) => r.body!.amount);
    expect(asked).toEqual([40, 60]);
    const [t] = await sql('select status, refunded_amount::int from transactions where checkout_id = ?', [c.id]);
    expect(t).toEqual({ status: 'refunded', refunded_amount: 10_000 });
    const [s] = await sql('select status, refunded_amount::int from sales where id = ?', [sale.id]);
    expect(s).toEqual({ status: 'refunded', refunded_amount: 10_000 });
  });

  it('a 409 to the payment is no refusal: resolved by its key, the payment it made is the sale', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 7_700, taskQueue: QUEUE });
    mp.answerNextCreateWith(409);
    const res = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: mp.cardToken(),
    });
    const [payment, ...more] = paymentsOf(c.id);
    expect(more).toEqual([]);
    expect(payment).toMatchObject({ status: 'approved', transaction_amount: 77 });
    expect([res.status, res.body.status]).toEqual([200, 'succeeded']);
    const [sale] = await sql('select status, amount::int from sales where checkout_id = ?', [c.id]);
    expect(sale).toEqual({ status: 'paid', amount: 7_700 });
  });
});

describe('Mercado Pago: a lost answer while the search lags (decision 0067)', () => {
  it('is resolved to the payment its key made, by the create sent again: one payment, the sale', async () => {
    const c = await makeCheckout(api.orm, temporal, { amount: 6_600, taskQueue: QUEUE });
    mp.searchLagMs = 10 * 60_000;
    mp.loseNextCreateAnswers(3); // every quick try of the charge: the payment is made, its answer lost
    const pay = () => confirm(c.clientSecret, { payment_method: 'credit_card', card_token: mp.cardToken() });
    let answers;
    try {
      // The buyer, told anything but paid, would pay again: that second try must charge nothing.
      answers = [await pay(), await pay()];
    } finally {
      mp.searchLagMs = 0;
    }
    const [payment, ...more] = paymentsOf(c.id);
    expect(more).toEqual([]);
    expect(payment).toMatchObject({ status: 'approved', transaction_amount: 66 });
    expect([answers[0]!.status, answers[0]!.body.status]).toEqual([200, 'succeeded']);
    expect(answers[1]!.status).not.toBe(200);
    await waitForCheckoutStatus(api.orm, c.id, 'succeeded');
    const [sale] = await sql('select status, amount::int from sales where checkout_id = ?', [c.id]);
    expect(sale).toEqual({ status: 'paid', amount: 6_600 });
    const [t, ...others] = await sql('select gateway_transaction_id from transactions where checkout_id = ?', [c.id]);
    expect(others).toEqual([]);
    expect(t.gateway_transaction_id).toBe(payment!.id);
  });
});

describe('Mercado Pago: a kept card asks for its security code with the buyer present (decision 0074)', () => {
  const charge = (token: string, extra: Record<string, unknown> = {}) =>
    cardPaymentsOf(api.gateway).chargeCard(
      {
        reference: `kept-${token}`,
        amount: 2_000,
        currency: 'BRL',
        installments: 1,
        noFeesInstallments: true,
        card: { token },
        capture: true,
        ...extra,
      },
      `test:kept:${token}:${Object.keys(extra).join(',')}`,
    );

  it('refuses a token minted without the security code for a buyer-present charge, and charges one minted with it', async () => {
    const email = `kept-${Date.now()}@example.com`;
    const kept = await cardPaymentsOf(api.gateway).keepBrowserCard(
      mp.browserToken(),
      { email, name: 'Ana Souza' },
      `test:keep:${email}`,
    );
    const [, customerId, cardId] = kept.id.split(':');
    const payer = { email };
    const method = { cardMethod: { paymentMethodId: 'master', issuerId: '24' }, buyerId: customerId, payer };

    // The buyer at the page, the card's token minted without its security code: refused (3031).
    await expect(charge(mp.keptCardToken(cardId!), method)).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/security_code_id can't be null/),
    });
    // The buyer typed the security code again; the browser minted the token with it: approved.
    const paid = await charge(mp.keptCardToken(cardId!, '123'), method);
    expect(paid).toMatchObject({ status: 'succeeded', amount: 2_000 });

    // Our server charging the kept card as a buyer's payment (no subscription messaging): refused too.
    await expect(charge(kept.id)).rejects.toMatchObject({ retryable: false, name: 'SavedCardRefused' });
    // As the merchant's recurring charge, with the subscription messaging: approved.
    const renewed = await charge(kept.id, {
      initiatedBy: 'merchant',
      recurring: {
        subscriptionId: 'sub_1',
        sequence: 2,
        interval: 'month',
        intervalCount: 1,
        billingDate: '2026-11-28',
      },
    });
    expect(renewed).toMatchObject({ status: 'succeeded' });
  });
});
