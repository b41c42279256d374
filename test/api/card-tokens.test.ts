import { cardPaymentsOf } from '../../gateway/capabilities.ts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { refusalError } from '../../api/checkout-confirmation.ts';
import { sellerIdOf } from '../../api/seller-ids.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { createCheckoutRecordActivities } from '../../activities/checkout-records.ts';
import { CONFIRMATION_INVALID } from '../../domain/checkout.ts';
import { makeCheckout } from '../helpers/checkouts.ts';
import { makeTenant } from '../helpers/fixtures.ts';

/**
 * A card as the gateway's browser token (confirm-sdk's and direct transactions' `card_token`), and card
 * data refused by a live deployment unless it accepts full PCI DSS scope (issue 24 §3). The browser's
 * token is what the simulator's tokenization makes (its sandbox script's endpoint calls it).
 */
let sandbox: TestApi;
let live: TestApi;
let temporal: Client;
const LIVE = {
  DEPLOYMENT_ENV: 'live',
  GATEWAY: 'simulator',
  GATEWAY_CALLBACK_SECRET: 'live-callback-secret-0123456789',
};
beforeAll(async () => {
  sandbox = await startApi();
  live = await startApi(LIVE);
  temporal = createTemporalClient(sandbox.config);
});
afterAll(async () => {
  await (sandbox.gateway as SimulatedGateway).settleCallbacks();
  await temporal.connection.close();
  await Promise.all([sandbox.close(), live.close()]);
});

const cardData = {
  number: '4111111111111111',
  holder_name: 'Ana Souza',
  expiration_month: '12',
  expiration_year: '2031',
  cvv: '123',
};
/** What the buyer's browser gets from the sandbox's tokenization: a token id, never seen by our server with its number. */
const browserToken = async (number = '5555555555554444') =>
  (
    await cardPaymentsOf(sandbox.gateway).tokenizeCard(
      { number, holderName: 'Ana Souza', expirationMonth: '12', expirationYear: '2031', cvv: '123' },
      `browser-${Math.random()}`,
    )
  ).id;
const sql = (api: TestApi, q: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(q, params);
const confirm = (api: TestApi, clientSecret: string, body: unknown) =>
  api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, { body });

describe('confirm-sdk with card_token', () => {
  it("pays with the browser's token: the sale's card is the token's", async () => {
    const c = await makeCheckout(sandbox.orm, temporal);
    const res = await confirm(sandbox, c.clientSecret, {
      payment_method: 'credit_card',
      card_token: { token: await browserToken(), installments: 2 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', installments: 2 });
    const [t] = await sql(sandbox, 'select status, card from transactions where checkout_id = ?', [c.id]);
    expect(t.status).toBe('succeeded');
    expect(t.card).toMatchObject({ brand: 'mastercard', last4: '4444' });
  });

  it('an unknown token is a 422 and the checkout stays open; card and card_token together are a 400', async () => {
    const c = await makeCheckout(sandbox.orm, temporal);
    const unknown = await confirm(sandbox, c.clientSecret, {
      payment_method: 'credit_card',
      card_token: { token: 'card_not_a_token' },
    });
    expect([unknown.status, unknown.body.code]).toEqual([422, 'invalid_card']);
    const both = await confirm(sandbox, c.clientSecret, {
      payment_method: 'credit_card',
      card: cardData,
      card_token: { token: await browserToken() },
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('Send the card or its card_token, not both');
    const pix = await confirm(sandbox, c.clientSecret, { payment_method: 'pix', card_token: { token: 'x' } });
    expect(pix.status).toBe(400);
    expect((await sql(sandbox, 'select status from checkouts where id = ?', [c.id]))[0]).toEqual({ status: 'open' });
  });
});

describe('a live deployment takes card data only when it accepts full PCI DSS scope', () => {
  it('confirm-sdk: card data is a 422 card_data_refused and writes nothing; the token pays', async () => {
    const c = await makeCheckout(live.orm, temporal);
    const refused = await confirm(live, c.clientSecret, { payment_method: 'credit_card', card: cardData });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'card_data_refused' });
    expect(refused.body.detail).toContain('ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE');
    expect((await sql(live, 'select status from checkouts where id = ?', [c.id]))[0]).toEqual({ status: 'open' });
    expect(await sql(live, 'select id from transactions where checkout_id = ?', [c.id])).toEqual([]);

    const paid = await confirm(live, c.clientSecret, {
      payment_method: 'credit_card',
      card_token: { token: await browserToken() },
    });
    expect([paid.status, paid.body.status]).toEqual([200, 'succeeded']);
  });

  it('direct transactions: card data is refused, card_token is charged', async () => {
    const t = await makeTenant(live.orm);
    const direct = (body: Record<string, unknown>) =>
      live.call('POST', '/api/v1/transactions/direct', {
        body: { seller_id: sellerIdOf(t.org.id), amount: 2500, customer_email: 'ana@example.com', ...body },
        headers: { 'idempotency-key': `k-${Math.random()}` },
      });
    const refused = await direct({
      card: {
        card_number: '4111111111111111',
        holder_name: 'ANA',
        expiration_month: '12',
        expiration_year: '2031',
        security_code: '123',
      },
    });
    expect([refused.status, refused.body.code]).toEqual([422, 'card_data_refused']);
    expect(await sql(live, 'select id from transactions where organization_id = ?', [t.org.id])).toEqual([]);

    const paid = await direct({ card_token: await browserToken('4111111111111111') });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({
      status: 'succeeded',
      amount: 2500,
      payment_method: { brand: 'visa', last4: '1111' },
    });
  });

  it('with ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE=true it takes card data again', async () => {
    const accepting = await startApi({ ...LIVE, ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE: 'true' });
    try {
      const c = await makeCheckout(accepting.orm, temporal);
      const res = await confirm(accepting, c.clientSecret, { payment_method: 'credit_card', card: cardData });
      expect([res.status, res.body.status]).toEqual([200, 'succeeded']);
    } finally {
      await accepting.close();
    }
  });
});

describe('with Mercado Pago', () => {
  it('a recurring checkout is billed by manual renewals unless told otherwise; gateway recurrence is a 422', async () => {
    const mp = await startApi({ GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'TEST-0000-token' });
    try {
      const t = await makeTenant(mp.orm);
      const product = await mp.call('POST', '/api/v1/products/', {
        token: t.oat,
        body: {
          organization_id: t.org.id,
          name: 'Plano',
          prices: [{ currency: 'brl', type: 'recurring', unit_amount: 4990, interval: 'month' }],
        },
      });
      expect(product.status).toBe(201);
      const open = (body: object) =>
        mp.call('POST', '/api/v1/checkouts/', { token: t.oat, body: { product_id: product.body.id, ...body } });
      const unsent = await open({});
      expect([unsent.status, unsent.body.recurrence_billing]).toEqual([201, 'manual']);
      const refused = await open({ recurrence_billing: 'gateway' });
      expect([refused.status, refused.body.code]).toEqual([422, 'gateway_recurrence_unavailable']);
      // The simulator bills recurrence itself: there the default is unchanged.
      const sim = await sandbox.call('POST', '/api/v1/checkouts/', {
        token: t.oat,
        body: { product_id: product.body.id },
      });
      expect([sim.status, sim.body.recurrence_billing]).toEqual([201, 'gateway']);
    } finally {
      await mp.close();
    }
  });

  it("a boleto needs the buyer's address: a 422 before any gateway call, the checkout left open", async () => {
    const mp = await startApi({ GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'TEST-0000-token' });
    try {
      const c = await makeCheckout(mp.orm, temporal);
      const boleto = { payment_method: 'boleto', customer_name: 'Ana Souza', customer_tax_id: '529.982.247-25' };
      const res = await confirm(mp, c.clientSecret, boleto);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        error: 'customer_billing_address is required for boleto',
        code: 'customer_billing_address_required',
      });
      expect((await sql(mp, 'select status from checkouts where id = ?', [c.id]))[0]).toEqual({ status: 'open' });
      // The simulator prints no address: the same confirmation is no refusal there.
      const sim = await confirm(sandbox, (await makeCheckout(sandbox.orm, temporal)).clientSecret, boleto);
      expect(sim.status).toBe(200);
    } finally {
      await mp.close();
    }
  });

  it("the confirmation's activity is where the refusal is decided: it refuses the boleto with its gateway", async () => {
    const mp = await startApi({ GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'TEST-0000-token' });
    try {
      // An Update that did not pass the API's early answer (or a checkout changed since): the activity
      // still refuses, under the checkout's lock, before anything is written or charged (decision 0062).
      const c = await makeCheckout(mp.orm, temporal);
      const { prepareConfirmation } = createCheckoutRecordActivities({ orm: mp.orm, gateway: mp.gateway });
      const buyer = { email: 'ana@example.com', name: 'Ana Souza', taxId: '52998224725', billingAddress: null };
      const request = { paymentMethod: 'boleto' as const, card: null, installments: 1, buyer, discountCode: null };
      const refused = await prepareConfirmation(c.id, request).catch((err: unknown) => err);
      expect(refused).toMatchObject({
        type: CONFIRMATION_INVALID,
        message: 'customer_billing_address is required for boleto',
      });
      // Its status and code travel with it: the API answers as its early check does (422, not 400).
      const { message, details } = refused as ApplicationFailure;
      expect(refusalError(message, details?.[0])).toMatchObject({
        statusCode: 422,
        code: 'customer_billing_address_required',
        message: 'customer_billing_address is required for boleto',
        detail: "The gateway prints the buyer's address on the boleto",
      });
      expect((await sql(mp, 'select status from checkouts where id = ?', [c.id]))[0]).toEqual({ status: 'open' });
    } finally {
      await mp.close();
    }
  });
});
