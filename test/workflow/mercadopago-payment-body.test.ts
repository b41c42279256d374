import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { TestApi } from '../helpers/api.ts';
import { mercadoPagoStack } from '../helpers/mercadopago-stack.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { makeOat, makeOrganization } from '../helpers/fixtures.ts';
import { fakeMercadoPago, type FakeRequest } from '../helpers/mercadopago-fake.ts';
import { subscriptionWhen, advancePastPeriodEnd } from '../helpers/subscriptions.ts';
import { waitFor } from '../helpers/processes.ts';
import { brazilToday, invoiceChargeKey } from '../../domain/invoices.ts';
import { sellerIdOf } from '../../api/seller-ids.ts';

/**
 * What the Mercado Pago payment bodies carry beside the money (issue 33 §1 and §2, decision 0069), end
 * to end: from confirm-sdk through the checkout's workflow to the charge, and the subscription's own
 * charges. A checkout's card payment names the seller on the statement, lists the product, and
 * carries the buyer's IP and device id; a renewal's and an extra charge's go in binary_mode.
 */
const QUEUE = 'billing-test-mercadopago-body';
const mp = fakeMercadoPago();
const stack = mercadoPagoStack(QUEUE);
let api: TestApi;
let temporal: Client;
beforeAll(() => {
  ({ api, temporal } = stack);
});

const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);
const confirm = (clientSecret: string, body: unknown) =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, { body });
const paymentPosts = () => mp.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payments');
const chargeOf = (checkoutId: string): FakeRequest =>
  paymentPosts().find((r) => r.body?.metadata?.reference === checkoutId)!;

describe('a checkout’s card payment (the buyer present)', () => {
  it('names the seller, lists the product, and carries the buyer’s IP and device id; no binary_mode', async () => {
    const org = await makeOrganization(api.orm, { name: 'Padaria São João Ltda.' });
    const c = await makeCheckout(api.orm, temporal, {
      organizationId: org.id,
      productName: 'Curso de pão',
      amount: 19_990,
      taskQueue: QUEUE,
    });
    const res = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: mp.cardToken(),
      device_session_id: 'armor.5f2c9e0d1b',
    });
    expect(res.status).toBe(200);

    const charge = chargeOf(c.id);
    expect(charge.body).toMatchObject({
      statement_descriptor: 'Padaria Sao J',
      additional_info: {
        items: [{ id: c.productId, title: 'Curso de pão', quantity: 1, unit_price: 199.9 }],
        ip_address: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/),
      },
    });
    expect(charge.body).not.toHaveProperty('binary_mode');
    expect(charge.headers['x-meli-session-id']).toBe('armor.5f2c9e0d1b');
    // Never card data in what travels beside the charge.
    expect(JSON.stringify(charge.body!.additional_info)).not.toMatch(/\d{13,19}/);
  });

  it('a device id that is not a plain visible string is refused with the validation error', async () => {
    const c = await makeCheckout(api.orm, temporal, { taskQueue: QUEUE });
    const res = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: mp.cardToken(),
      device_session_id: 'armor\r\nX-Injected: 1',
    });
    expect(res.status).toBe(400);
    expect(chargeOf(c.id)).toBeUndefined();
  });
});

describe('charges nobody is at (the merchant’s)', () => {
  it('a renewal’s and an extra charge’s card payments go in binary_mode', async () => {
    const org = await makeOrganization(api.orm);
    const c = await makeCheckout(api.orm, temporal, {
      organizationId: org.id,
      recurring: 'month',
      recurrenceBilling: 'manual',
      amount: 4_990,
      taskQueue: QUEUE,
    });
    const first = await confirm(c.clientSecret, {
      payment_method: 'credit_card',
      card_token: mp.cardToken(),
    });
    expect(first.status).toBe(200);
    expect(chargeOf(c.id).body).not.toHaveProperty('binary_mode');

    const [row] = await sql('select id, current_period_end from subscriptions where checkout_id = ?', [c.id]);
    const s = { id: row.id as string, oat: await makeOat(api.orm, org.id) };
    await advancePastPeriodEnd(api, s, row.current_period_end);
    await subscriptionWhen(api, s, (b) => b.period_number === 2);
    const renewals = paymentPosts().filter((r) => r.body?.metadata?.reference === s.id);
    expect(renewals.length).toBeGreaterThanOrEqual(1);
    for (const r of renewals) expect(r.body).toMatchObject({ binary_mode: true });

    const invoice = await api.call('POST', `/api/v1/subscriptions/${s.id}/invoices`, {
      body: { amount: 1_500, due_date: brazilToday(new Date()), description: 'Setup' },
      token: s.oat,
    });
    expect(invoice.status).toBe(201);
    await waitFor(async () => paymentPosts().some((r) => r.key === invoiceChargeKey(invoice.body.id)), {
      what: 'the extra charge',
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    const extra = paymentPosts().filter((r) => r.key === invoiceChargeKey(invoice.body.id));
    expect(extra.map((r) => r.body!.binary_mode)).toEqual([true]);
  });
});

describe('a direct pix transaction (no checkout)', () => {
  it('answers with Mercado Pago’s own page for paying it (ticket_url), beside the QR code', async () => {
    const org = await makeOrganization(api.orm);
    const res = await api.call('POST', '/api/v1/transactions/direct', {
      body: { seller_id: sellerIdOf(org.id), amount: 1_990, payment_type: 'pix', customer_email: 'pix@example.com' },
    });
    expect(res.status).toBe(201);
    const issued = paymentPosts().find(
      (r) => r.body?.payment_method_id === 'pix' && r.body?.transaction_amount === 19.9,
    );
    expect(res.body).toMatchObject({ status: 'pending', amount: 1_990, payment_method: { type: 'pix' } });
    expect(res.body.pix).toEqual({
      qr_code: expect.any(String),
      qr_code_image: expect.any(String),
      expires_at: expect.any(String),
      url: expect.stringMatching(/^https:\/\/www\.mercadopago\.com\.br\/payments\/\d+\/ticket/),
    });
    expect(issued?.body?.payer?.email).toBe('pix@example.com');
  });
});
