import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { SANDBOX_PUBLIC_KEY } from '../../api/browser-card-tokenizer.ts';
import { buyerPayment } from '../../domain/installments.ts';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createTemporalClient } from '../../temporal/client.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeCheckout } from '../helpers/checkouts.ts';

/**
 * POST /sandbox-gateway/v1/card_tokens: the simulated gateway's browser tokenization in Mercado
 * Pago's shape (what sandbox-gateway.js calls), and its token paying a checkout through confirm-sdk.
 */
let api: TestApi;
let temporal: Client;
beforeAll(async () => {
  api = await startApi();
  temporal = createTemporalClient(api.config);
});
afterAll(async () => {
  await (api?.gateway as SimulatedGateway | undefined)?.settleCallbacks();
  await temporal?.connection.close();
  await api?.close();
});

const card = (number = '4111111111111111') => ({
  card_number: number,
  expiration_month: 12,
  expiration_year: 2031,
  security_code: '123',
  cardholder: { name: 'Ana Souza', identification: { type: 'CPF', number: '52998224725' } },
});
const tokenize = (body: unknown, key = SANDBOX_PUBLIC_KEY, target = api) =>
  target.call('POST', `/sandbox-gateway/v1/card_tokens?public_key=${encodeURIComponent(key)}`, { body });

describe('the sandbox card tokenizer', () => {
  it("answers 201 with Mercado Pago's card token shape; the number itself is not kept", async () => {
    const res = await tokenize(card());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^card_/),
      first_six_digits: '411111',
      last_four_digits: '1111',
      expiration_month: 12,
      expiration_year: 2031,
      cardholder: { name: 'Ana Souza' },
      status: 'active',
    });
    const [row] = await api.orm.em
      .getConnection()
      .execute('select * from gateway_sim.cards where id = ?', [res.body.id]);
    expect(row).toMatchObject({ brand: 'visa', last4: '1111', expiration_year: '2031', expiration_month: '12' });
    expect(JSON.stringify(row)).not.toContain('4111111111111111');
    // Each press of the buyer's button is a new token.
    expect((await tokenize(card())).body.id).not.toBe(res.body.id);
  });

  it.each([
    ['a card number with letters', { ...card(), card_number: '4111abcd11111111' }],
    ['a month of 13', { ...card(), expiration_month: 13 }],
    ['a two-digit year', { ...card(), expiration_year: 31 }],
    ['no holder', { ...card(), cardholder: undefined }],
    ['a blank holder name', { ...card(), cardholder: { name: '  ' } }],
    ['an unknown field', { ...card(), cvv: '123' }],
  ])('%s is a 400 with the error body', async (_label, body) => {
    const res = await tokenize(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(expect.objectContaining({ code: 'validation_error', error: expect.any(String) }));
  });

  it("takes only the sandbox's public key (401 otherwise), and one is required (400)", async () => {
    const wrong = await tokenize(card(), 'APP_USR-someone-else');
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_public_key');
    const none = await api.call('POST', '/sandbox-gateway/v1/card_tokens', { body: card() });
    expect(none.status).toBe(400);
  });

  it("makes a token that confirm-sdk's card_token pays a checkout with", async () => {
    const checkout = await makeCheckout(api.orm, temporal, { amount: 4_990 });
    const token = await tokenize(card());
    const res = await api.call('POST', `/api/v1/checkouts/client/${checkout.clientSecret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', card_token: { token: token.body.id, installments: 2 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', installments: 2 });
    const [transaction] = await api.orm.em
      .getConnection()
      .execute('select card from transactions where checkout_id = ?', [checkout.id]);
    expect(transaction!.card).toMatchObject({ brand: 'visa', last4: '1111', holder_name: 'Ana Souza' });
  });

  it('is counted per client address, whatever credential is sent (a made-up one opens no new count)', async () => {
    const limited = await startApi({ RATE_LIMIT_MAX: '2' });
    const counter = `delete from rate_limit_counters where key = 'ip:127.0.0.1'`;
    try {
      await limited.orm.em.getConnection().execute(counter);
      const statuses: number[] = [];
      for (const token of ['made-up-1', 'made-up-2', 'made-up-3']) {
        const url = `/sandbox-gateway/v1/card_tokens?public_key=${SANDBOX_PUBLIC_KEY}`;
        statuses.push((await limited.call('POST', url, { body: card(), token })).status);
      }
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await limited.orm.em.getConnection().execute(counter);
      await limited.close();
    }
  });

  it('is a 404 where there is no simulated gateway (GATEWAY=mercadopago)', async () => {
    const mercadoPago = await startApi({ GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'TEST-123' });
    try {
      const res = await tokenize(card(), SANDBOX_PUBLIC_KEY, mercadoPago);
      expect(res.status).toBe(404);
    } finally {
      await mercadoPago.close();
    }
  });
});

/** GET /sandbox-gateway/v1/payment_methods/…: MercadoPago.js' BIN look-ups, on the simulator's test cards. */
describe("the sandbox's BIN look-ups", () => {
  const lookUp = (path: string, query: Record<string, string>) =>
    api.call('GET', `/sandbox-gateway/v1/payment_methods/${path}?${new URLSearchParams(query)}`);

  it("names a card's payment method and issuer by its BIN", async () => {
    const key = SANDBOX_PUBLIC_KEY;
    expect((await lookUp('search', { public_key: key, bins: '41111111' })).body).toEqual({
      results: [{ id: 'visa', payment_type_id: 'credit_card', issuer: { id: 9001, name: 'Banco Simulado' } }],
    });
    expect((await lookUp('search', { public_key: key, bins: '40000566' })).body.results[0]).toMatchObject({
      id: 'debvisa',
      payment_type_id: 'debit_card',
    });
    expect((await lookUp('search', { public_key: key, bins: '99999999' })).body).toEqual({ results: [] });
    expect((await lookUp('search', { public_key: 'TEST-other', bins: '41111111' })).status).toBe(401);
    expect((await lookUp('search', { public_key: key, bins: '4111' })).status).toBe(400);
  });

  it("offers only the issuer's instalments, with the simulator's interest; a debit card one", async () => {
    const key = SANDBOX_PUBLIC_KEY;
    const visa = await lookUp('installments', { public_key: key, bin: '41111111', amount: '100.00' });
    expect(visa.status).toBe(200);
    const costs = visa.body[0].payer_costs;
    expect(costs).toHaveLength(12);
    expect(costs[0]).toEqual({ installments: 1, installment_rate: 0, installment_amount: 100, total_amount: 100 });
    // At the simulator's rate (domain/installments.ts): what the simulator then charges for 3 instalments.
    const three = buyerPayment(10_000, 3, false);
    expect(costs[2]).toEqual({
      installments: 3,
      installment_rate: Math.round((three.total_amount / 10_000 - 1) * 10_000) / 100,
      installment_amount: three.installment_amount / 100,
      total_amount: three.total_amount / 100,
    });
    const master = await lookUp('installments', { public_key: key, bin: '55555555', amount: '100.00' });
    expect(master.body[0].payer_costs.map((c: { installments: number }) => c.installments)).toEqual([1, 2, 3, 4, 5, 6]);
    const debit = await lookUp('installments', {
      public_key: key,
      bin: '40000566',
      amount: '100.00',
      payment_type_id: 'debit_card',
    });
    expect(debit.body[0].payer_costs).toHaveLength(1);
    // A debit card asked for as credit: no plan.
    expect(
      (
        await lookUp('installments', {
          public_key: key,
          bin: '40000566',
          amount: '100',
          payment_type_id: 'credit_card',
        })
      ).body,
    ).toEqual([]);
  });
});
