import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { SANDBOX_PUBLIC_KEY } from '../../api/browser-card-tokenizer.ts';
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
