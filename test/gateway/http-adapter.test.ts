import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { loadConfig } from '../../config/env.ts';
import { openOrm, type Orm } from '../../db/orm.ts';
import { GatewayHttpError, HttpGateway } from '../../gateway/http-adapter.ts';
import { createGateway } from '../../gateway/index.ts';
import { GatewayError, type CardChargeInput } from '../../gateway/port.ts';
import { buildGatewayServer, GatewayFaults } from '@billing/simulated-gateway/server';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { startApi } from '../helpers/api.ts';
import { TEST_DATABASE_URL, testEnv } from '../helpers/env.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';

/**
 * The HTTP adapter against the standalone simulated-gateway server, over real HTTP: the server is
 * backed by a real SimulatedGateway on the test database, so every answer can be checked against the
 * simulator's own books.
 */
const API_KEY = 'gw_test_key_0123456789';

let orm: Orm;
let simulator: SimulatedGateway;
let faults: GatewayFaults;
let server: FastifyInstance;
let baseUrl: string;
let gateway: HttpGateway;
/** Every call the server answered, as `METHOD /route status`. */
const served: string[] = [];

beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 5);
  simulator = new SimulatedGateway(orm);
  faults = new GatewayFaults();
  server = buildGatewayServer({ gateway: simulator, apiKey: API_KEY, faults, sandbox: simulator });
  server.addHook('onResponse', async (req, reply) => {
    served.push(`${req.method} ${req.routeOptions.url ?? req.url} ${reply.statusCode}`);
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  baseUrl = `http://127.0.0.1:${address.port}`;
  gateway = new HttpGateway({ baseUrl, apiKey: API_KEY, timeoutMs: 5000 });
});

afterEach(() => faults.reset());

afterAll(async () => {
  await server.close();
  await orm.close();
});

const APPROVED = '4111111111111111';
const INSUFFICIENT_FUNDS = '4000000000009995';
const AUTHORIZE_ONLY = '4000000000003220';
const PROCESSING_ERROR_ONCE = '4000000000000119';

function cardCharge(overrides: Partial<CardChargeInput> = {}, number = APPROVED): CardChargeInput {
  return {
    reference: unique('checkout'),
    amount: 10_000,
    currency: 'brl',
    installments: 1,
    noFeesInstallments: false,
    card: { number, holderName: 'Maria Silva', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
    capture: true,
    description: 'Yoga Pro',
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<GatewayHttpError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayHttpError;
  }
  throw new Error('expected the call to fail');
}

async function ledger(transactionId: string) {
  return orm.em
    .getConnection()
    .execute('select kind, amount::int as amount from gateway_sim.ledger where transaction_id = ? order by id', [
      transactionId,
    ]);
}

async function transactionsFor(reference: string) {
  return orm.em.getConnection().execute('select id from gateway_sim.transactions where reference = ?', [reference]);
}

/** A raw call, to see the wire itself. */
async function raw(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await request(baseUrl + path, {
    method,
    headers: {
      authorization: `Bearer ${API_KEY}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

describe('card charges', () => {
  it('approves a card charge and captures it once', async () => {
    const input = cardCharge();
    const t = await gateway.chargeCard(input, `${input.reference}:charge`);
    expect(t).toMatchObject({
      reference: input.reference,
      status: 'succeeded',
      paymentType: 'credit',
      amount: 10_000,
      baseAmount: 10_000,
      currency: 'brl',
      installments: 1,
      installmentAmounts: [10_000],
      declineReason: null,
      capturedAmount: 10_000,
      refundedAmount: 0,
      pix: null,
      boleto: null,
      card: { brand: 'visa', first4: '4111', last4: '1111', holderName: 'Maria Silva' },
    });
    expect(t.authorizationCode).toEqual(expect.any(String));
    expect(JSON.stringify(t)).not.toContain(APPROVED);
    expect(await ledger(t.id)).toEqual([{ kind: 'capture', amount: 10_000 }]);
  });

  it('answers a declined card as a failed transaction with its decline_reason, not as an error', async () => {
    const input = cardCharge({}, INSUFFICIENT_FUNDS);
    const t = await gateway.chargeCard(input, `${input.reference}:charge`);
    expect(t).toMatchObject({ status: 'failed', declineReason: 'insufficient_funds', capturedAmount: 0 });
    expect(await ledger(t.id)).toEqual([]);

    // On the wire: snake_case, with decline_reason.
    const wire = await raw('GET', `/v1/transactions/${t.id}`);
    expect(wire.status).toBe(200);
    expect(wire.body).toMatchObject({
      id: t.id,
      status: 'failed',
      payment_type: 'credit',
      decline_reason: 'insufficient_funds',
      captured_amount: 0,
      base_amount: 10_000,
    });
  });

  it('charges installments with interest, the installments adding up to the amount', async () => {
    const input = cardCharge({ installments: 3 });
    const t = await gateway.chargeCard(input, `${input.reference}:charge`);
    expect(t.installments).toBe(3);
    expect(t.baseAmount).toBe(10_000);
    expect(t.amount).toBeGreaterThan(10_000);
    expect(t.installmentAmounts).toHaveLength(3);
    expect(t.installmentAmounts.reduce((a, b) => a + b, 0)).toBe(t.amount);
  });

  it('pre-authorizes, captures, refunds partially and refuses a refund above what was captured', async () => {
    const input = cardCharge({ capture: false, amount: 8_000 }, AUTHORIZE_ONLY);
    const authorized = await gateway.chargeCard(input, `${input.reference}:authorize`);
    expect(authorized).toMatchObject({ status: 'pre_authorized', capturedAmount: 0 });

    const captured = await gateway.capture(authorized.id, null, `${input.reference}:capture`);
    expect(captured).toMatchObject({ id: authorized.id, status: 'succeeded', capturedAmount: 8_000 });

    const refunded = await gateway.refund(authorized.id, 3_000, `${input.reference}:refund:1`);
    expect(refunded).toMatchObject({ status: 'partial_refunded', capturedAmount: 8_000, refundedAmount: 3_000 });

    const tooMuch = await rejection(gateway.refund(authorized.id, 5_001, `${input.reference}:refund:2`));
    expect(tooMuch.retryable).toBe(false);
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.type).toBe('request_refused');

    expect(await ledger(authorized.id)).toEqual([
      { kind: 'capture', amount: 8_000 },
      { kind: 'refund', amount: 3_000 },
    ]);
  });

  it('voids a pre-authorization', async () => {
    const input = cardCharge({ capture: false }, AUTHORIZE_ONLY);
    const authorized = await gateway.chargeCard(input, `${input.reference}:authorize`);
    const voided = await gateway.cancel(authorized.id, `${input.reference}:void`);
    expect(voided).toMatchObject({ id: authorized.id, status: 'canceled', capturedAmount: 0 });
    expect(await ledger(authorized.id)).toEqual([]);
  });

  it('charges a tokenized card and a registered buyer', async () => {
    const key = unique('card');
    const token = await gateway.tokenizeCard(
      {
        number: '5555555555554444',
        holderName: 'João Souza',
        expirationMonth: '01',
        expirationYear: '2031',
        cvv: '321',
      },
      `${key}:token`,
    );
    expect(token).toEqual({
      id: expect.any(String),
      brand: 'mastercard',
      first4: '5555',
      last4: '4444',
      holderName: 'João Souza',
      expirationMonth: '01',
      expirationYear: '2031',
    });
    const buyer = await gateway.createBuyer(
      { email: 'joao@example.com', name: 'João Souza', taxId: '52998224725' },
      `${key}:buyer`,
    );
    expect(buyer).toEqual({
      id: expect.any(String),
      email: 'joao@example.com',
      name: 'João Souza',
      taxId: '52998224725',
    });

    const t = await gateway.chargeCard(cardCharge({ card: { token: token.id }, buyerId: buyer.id }), `${key}:charge`);
    expect(t).toMatchObject({ status: 'succeeded', buyerId: buyer.id, card: token });

    // A browser's token (the sandbox tokenization endpoint's) is kept as it is: the same card.
    const owner = { email: 'joao@example.com', name: 'João Souza' };
    expect(await gateway.keepBrowserCard(token.id, owner, `${key}:keep`)).toEqual(token);
    await expect(gateway.keepBrowserCard('card_unknown', owner, `${key}:keep2`)).rejects.toMatchObject({
      retryable: false,
    });
  });
});

describe('pix and boleto', () => {
  it('creates a pix charge pending with its QR code, and sees it paid', async () => {
    const reference = unique('checkout');
    const t = await gateway.createPixCharge(
      { reference, amount: 4_990, currency: 'brl', buyer: { email: 'ana@example.com' }, expiresInSeconds: 1800 },
      `${reference}:pix`,
    );
    expect(t).toMatchObject({ status: 'pending', paymentType: 'pix', amount: 4_990, capturedAmount: 0, card: null });
    expect(t.pix!.qrCode.length).toBeGreaterThan(20);
    expect(t.pix!.qrCodeImage).toMatch(/^data:image\/png;base64,/);
    expect(new Date(t.pix!.expiresAt).getTime()).toBeGreaterThan(Date.now());

    const paid = await raw('POST', `/v1/_sandbox/transactions/${t.id}/pay`, {});
    expect(paid.status).toBe(200);
    expect(await gateway.getTransaction(t.id)).toMatchObject({ status: 'succeeded', capturedAmount: 4_990 });
  });

  it('creates a boleto pending with its barcode and due date', async () => {
    const reference = unique('checkout');
    const t = await gateway.createBoleto(
      {
        reference,
        amount: 12_345,
        currency: 'brl',
        buyer: { email: 'rui@example.com', name: 'Rui Costa', taxId: '52998224725' },
        dueDate: '2031-03-10',
      },
      `${reference}:boleto`,
    );
    expect(t).toMatchObject({ status: 'pending', paymentType: 'boleto', amount: 12_345 });
    expect(t.boleto).toMatchObject({ dueDate: '2031-03-10' });
    expect(t.boleto!.digitableLine).toMatch(/\d/);
    expect(t.boleto!.barcode).toMatch(/\d/);
  });
});

describe('getTransaction', () => {
  it('round-trips every field of card, pix and boleto transactions', async () => {
    const card = cardCharge({ installments: 2, capture: false }, AUTHORIZE_ONLY);
    const t1 = await gateway.chargeCard(card, `${card.reference}:authorize`);
    await gateway.capture(t1.id, 5_000, `${card.reference}:capture`);
    const pixRef = unique('checkout');
    const t2 = await gateway.createPixCharge(
      { reference: pixRef, amount: 990, currency: 'brl', buyer: { email: 'p@example.com' }, expiresInSeconds: 1800 },
      `${pixRef}:pix`,
    );
    const boletoRef = unique('checkout');
    const t3 = await gateway.createBoleto(
      {
        reference: boletoRef,
        amount: 2_000,
        currency: 'brl',
        buyer: { email: 'b@example.com' },
        dueDate: '2031-01-05',
      },
      `${boletoRef}:boleto`,
    );
    for (const id of [t1.id, t2.id, t3.id]) {
      const own = await simulator.getTransaction(id);
      expect(own).not.toBeNull();
      expect(await gateway.getTransaction(id)).toEqual(own);
    }
  });

  it('answers null for an unknown transaction or invoice', async () => {
    expect(await gateway.getTransaction('tr_does_not_exist')).toBeNull();
    expect(await gateway.getTransaction('../v1/plans')).toBeNull();
    expect(await gateway.getInvoice('inv_does_not_exist')).toBeNull();
  });

  it('refuses to act on an unknown transaction (not retryable)', async () => {
    const err = await rejection(gateway.capture('tr_does_not_exist', null, unique('capture')));
    expect(err.retryable).toBe(false);
  });
});

describe('idempotency over HTTP', () => {
  it('returns the first transaction for a repeated key and captures once', async () => {
    const input = cardCharge();
    const key = `${input.reference}:charge`;
    const first = await gateway.chargeCard(input, key);
    const again = await gateway.chargeCard(input, key);
    const concurrent = await Promise.all([gateway.chargeCard(input, key), gateway.chargeCard(input, key)]);
    expect(again).toEqual(first);
    expect(concurrent.map((t) => t.id)).toEqual([first.id, first.id]);
    expect(await transactionsFor(input.reference)).toEqual([{ id: first.id }]);
    expect(await ledger(first.id)).toEqual([{ kind: 'capture', amount: 10_000 }]);
  });

  it('refuses a key reused for another operation (422, not retryable)', async () => {
    const input = cardCharge();
    const key = `${input.reference}:charge`;
    await gateway.chargeCard(input, key);
    const err = await rejection(gateway.createBuyer({ email: 'x@example.com' }, key));
    expect(err).toMatchObject({ retryable: false, status: 422, type: 'request_refused' });
  });

  it('requires an Idempotency-Key on every POST', async () => {
    const res = await raw('POST', '/v1/buyers', { email: 'x@example.com' });
    expect(res).toEqual({
      status: 400,
      body: { error: { type: 'invalid_request', message: expect.stringContaining('Idempotency-Key') } },
    });
  });
});

describe('failures', () => {
  it('maps a 503 to a retryable error without reaching the gateway; the retry charges once', async () => {
    faults.failNext(1);
    const input = cardCharge();
    const key = `${input.reference}:charge`;
    const err = await rejection(gateway.chargeCard(input, key));
    expect(err).toMatchObject({ retryable: true, status: 503, type: 'unavailable' });
    expect(await transactionsFor(input.reference)).toEqual([]);

    const t = await gateway.chargeCard(input, key);
    expect(t.status).toBe('succeeded');
    expect(await ledger(t.id)).toEqual([{ kind: 'capture', amount: 10_000 }]);
  });

  it('maps 500 and 429 to retryable errors', async () => {
    faults.failNext(1, 500);
    faults.failNext(1, 429);
    const e500 = await rejection(gateway.getTransaction('tr_any'));
    const e429 = await rejection(gateway.getTransaction('tr_any'));
    expect(e500).toMatchObject({ retryable: true, status: 500, type: 'internal' });
    expect(e429).toMatchObject({ retryable: true, status: 429, type: 'rate_limited' });
  });

  it('maps the simulator’s processing error to a retryable error, and the retry with the same key approves', async () => {
    const input = cardCharge({}, PROCESSING_ERROR_ONCE);
    const key = `${input.reference}:charge`;
    const err = await rejection(gateway.chargeCard(input, key));
    expect(err).toMatchObject({ retryable: true, status: 503 });
    const t = await gateway.chargeCard(input, key);
    expect(t.status).toBe('succeeded');
    expect(await ledger(t.id)).toEqual([{ kind: 'capture', amount: 10_000 }]);
  });

  it('gives up on a hung call after GATEWAY_TIMEOUT_MS (retryable); the retry returns what the slow call did', async () => {
    const impatient = new HttpGateway({ baseUrl, apiKey: API_KEY, timeoutMs: 300 });
    faults.delayNextMs(1_500);
    const input = cardCharge();
    const key = `${input.reference}:charge`;
    const started = Date.now();
    const err = await rejection(impatient.chargeCard(input, key));
    expect(Date.now() - started).toBeLessThan(1_200);
    expect(err).toMatchObject({ retryable: true, status: null });
    expect(err.message).toContain('no answer within 300 ms');

    // The gateway handles the slow call after all (once its delay is over): the retry gets that
    // transaction, charged once.
    await until(async () => (await transactionsFor(input.reference)).length > 0, 10_000, 'the slow call to be handled');
    const t = await impatient.chargeCard(input, key);
    expect(t.status).toBe('succeeded');
    expect(await transactionsFor(input.reference)).toEqual([{ id: t.id }]);
    expect(await ledger(t.id)).toEqual([{ kind: 'capture', amount: 10_000 }]);
  });

  it('maps an unreachable gateway to a retryable error', async () => {
    const nowhere = new HttpGateway({ baseUrl: 'http://127.0.0.1:1', apiKey: API_KEY, timeoutMs: 2_000 });
    const err = await rejection(nowhere.getTransaction('tr_any'));
    expect(err).toMatchObject({ retryable: true, status: null });
  });

  it('maps a 400 (invalid body) to a non-retryable error', async () => {
    const input = cardCharge({ installments: 13 });
    const err = await rejection(gateway.chargeCard(input, `${input.reference}:charge`));
    expect(err).toMatchObject({ retryable: false, status: 400, type: 'invalid_request' });
    expect(err.message).toContain('installments');
    expect(await transactionsFor(input.reference)).toEqual([]);
  });

  it('maps a wrong API key to a non-retryable error (401)', async () => {
    const intruder = new HttpGateway({ baseUrl, apiKey: 'wrong', timeoutMs: 2_000 });
    const input = cardCharge();
    const err = await rejection(intruder.chargeCard(input, `${input.reference}:charge`));
    expect(err).toMatchObject({ retryable: false, status: 401, type: 'unauthorized' });
    const lookup = await rejection(intruder.getTransaction('tr_any'));
    expect(lookup).toMatchObject({ retryable: false, status: 401 });
    expect(await transactionsFor(input.reference)).toEqual([]);
  });

  it('takes faults through the control endpoint too', async () => {
    const res = await raw('POST', '/v1/_faults', { fail_next: 2, status: 502 });
    expect(res.status).toBe(200);
    expect(await rejection(gateway.getTransaction('tr_any'))).toMatchObject({ retryable: true, status: 502 });
    expect(await rejection(gateway.getTransaction('tr_any'))).toMatchObject({ retryable: true, status: 502 });
    expect(await gateway.getTransaction('tr_any')).toBeNull();
  });
});

describe('findTransactionByIdempotencyKey', () => {
  it('finds what a create call made under a key, as it stands now, equal to the simulator’s own answer', async () => {
    const card = cardCharge({ capture: false }, AUTHORIZE_ONLY);
    const cardKey = `${card.reference}:authorize`;
    const held = await gateway.chargeCard(card, cardKey);
    expect(await gateway.findTransactionByIdempotencyKey(cardKey)).toEqual(held);
    await gateway.capture(held.id, null, `${card.reference}:capture`);
    const captured = await gateway.findTransactionByIdempotencyKey(cardKey);
    expect(captured).toMatchObject({ id: held.id, status: 'succeeded', capturedAmount: 10_000 });
    expect(captured).toEqual(await simulator.findTransactionByIdempotencyKey(cardKey));

    const declinedInput = cardCharge({}, INSUFFICIENT_FUNDS);
    const declinedKey = `${declinedInput.reference}:charge`;
    const declined = await gateway.chargeCard(declinedInput, declinedKey);
    expect(await gateway.findTransactionByIdempotencyKey(declinedKey)).toEqual(declined);
    expect(declined).toMatchObject({ status: 'failed', declineReason: 'insufficient_funds' });

    const pixRef = unique('checkout');
    const pix = await gateway.createPixCharge(
      { reference: pixRef, amount: 990, currency: 'brl', buyer: { email: 'p@example.com' }, expiresInSeconds: 1800 },
      `${pixRef}:pix`,
    );
    expect(await gateway.findTransactionByIdempotencyKey(`${pixRef}:pix`)).toEqual(pix);
    const boletoRef = unique('checkout');
    const boleto = await gateway.createBoleto(
      {
        reference: boletoRef,
        amount: 2_000,
        currency: 'brl',
        buyer: { email: 'b@example.com' },
        dueDate: '2031-01-05',
      },
      `${boletoRef}:boleto`,
    );
    expect(await gateway.findTransactionByIdempotencyKey(`${boletoRef}:boleto`)).toEqual(boleto);
  });

  it('answers null for an unknown key, a refused call and a key of another operation', async () => {
    expect(await gateway.findTransactionByIdempotencyKey(unique('never'))).toBeNull();
    const refused = unique('refused');
    await rejection(gateway.chargeCard(cardCharge({ card: { token: 'card_unknown' } }), refused));
    expect(await gateway.findTransactionByIdempotencyKey(refused)).toBeNull();
    const buyerKey = unique('buyer');
    await gateway.createBuyer({ email: 'x@example.com' }, buyerKey);
    expect(await gateway.findTransactionByIdempotencyKey(buyerKey)).toBeNull();
  });

  it('carries any key intact in the query string', async () => {
    const input = cardCharge();
    const key = `checkout:${input.reference}/charge?x=1&y=ç #2`;
    const t = await gateway.chargeCard(input, key);
    expect(await gateway.findTransactionByIdempotencyKey(key)).toEqual(t);
    expect(await gateway.findTransactionByIdempotencyKey(`checkout:${input.reference}/charge?x=1`)).toBeNull();
  });

  it('is GET /v1/transactions?idempotency_key=… answering a list of zero or one, 400 without the key', async () => {
    const input = cardCharge();
    const key = `${input.reference}:charge`;
    const t = await gateway.chargeCard(input, key);
    const found = await raw('GET', `/v1/transactions?idempotency_key=${encodeURIComponent(key)}`);
    expect(found).toEqual({
      status: 200,
      body: { data: [expect.objectContaining({ id: t.id, status: 'succeeded', captured_amount: 10_000 })] },
    });
    expect(await raw('GET', `/v1/transactions?idempotency_key=${unique('none')}`)).toEqual({
      status: 200,
      body: { data: [] },
    });
    expect(await raw('GET', '/v1/transactions')).toEqual({
      status: 400,
      body: { error: { type: 'invalid_request', message: expect.stringContaining('idempotency_key') } },
    });
  });

  it('treats a 404 as an error, never as "no such transaction" (a wrong base URL)', async () => {
    const misrouted = new HttpGateway({ baseUrl: `${baseUrl}/elsewhere`, apiKey: API_KEY, timeoutMs: 2_000 });
    const err = await rejection(misrouted.findTransactionByIdempotencyKey(unique('key')));
    expect(err).toMatchObject({ retryable: false, status: 404 });
  });
});

describe('lost answers', () => {
  async function ledgerTotals(reference: string) {
    return orm.em.getConnection().execute(
      `select l.kind, sum(l.amount)::int as total, count(*)::int as entries
       from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
       where t.reference = ? group by l.kind`,
      [reference],
    );
  }

  it('captures a charge whose answer is dropped: the adapter sees a retryable error, the lookup and the retry see the one capture', async () => {
    faults.dropAnswerNext(1, 'createTransaction');
    const input = cardCharge({ installments: 12, amount: 100_000 });
    const key = `${input.reference}:charge`;
    const err = await rejection(gateway.chargeCard(input, key));
    expect(err).toBeInstanceOf(GatewayHttpError);
    expect(err).toMatchObject({ retryable: true, status: null, type: null });

    // The gateway did the work: the charge is captured, though its answer never arrived.
    const found = await gateway.findTransactionByIdempotencyKey(key);
    expect(found).toMatchObject({
      reference: input.reference,
      status: 'succeeded',
      amount: 120_480,
      // Measured as Mercado Pago measures it (decision 0079): the transaction amount, not the buyer's interest.
      capturedAmount: 100_000,
    });
    const retried = await gateway.chargeCard(input, key);
    expect(retried).toEqual(found);
    expect(await transactionsFor(input.reference)).toEqual([{ id: found!.id }]);
    expect(await ledgerTotals(input.reference)).toEqual([{ kind: 'capture', total: 100_000, entries: 1 }]);
  });

  it('aims a fault at one route: other calls go through, the charge’s answer is the one lost', async () => {
    const res = await raw('POST', '/v1/_faults', { drop_answer_next: 1, route: 'createTransaction' });
    expect(res).toEqual({ status: 200, body: { ok: true } });
    const input = cardCharge();
    const key = `${input.reference}:charge`;
    expect(await gateway.getTransaction('tr_any')).toBeNull();
    expect(await gateway.findTransactionByIdempotencyKey(key)).toBeNull();
    expect(await rejection(gateway.chargeCard(input, key))).toMatchObject({ retryable: true, status: null });
    const found = await gateway.findTransactionByIdempotencyKey(key);
    expect(found).toMatchObject({ status: 'succeeded', capturedAmount: 10_000 });
    // Used up: the next charge is answered.
    const again = await gateway.chargeCard(input, key);
    expect(again).toEqual(found);
    expect(await ledgerTotals(input.reference)).toEqual([{ kind: 'capture', total: 10_000, entries: 1 }]);
  });

  it('aims a failure at one route too, and refuses an unknown route name', async () => {
    faults.failNext(1, 503, 'createTransaction');
    expect(await gateway.findTransactionByIdempotencyKey(unique('key'))).toBeNull();
    const input = cardCharge();
    expect(await rejection(gateway.chargeCard(input, `${input.reference}:charge`))).toMatchObject({ status: 503 });
    expect(await transactionsFor(input.reference)).toEqual([]);

    const bad = await raw('POST', '/v1/_faults', { drop_answer_next: 1, route: 'faults' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('invalid_request');
  });

  it('drops the answer of a refusal too: the refusal stands, the caller learns it only by looking', async () => {
    const input = cardCharge({}, INSUFFICIENT_FUNDS);
    const key = `${input.reference}:charge`;
    faults.dropAnswerNext(1);
    expect(await rejection(gateway.chargeCard(input, key))).toMatchObject({ retryable: true, status: null });
    expect(await gateway.findTransactionByIdempotencyKey(key)).toMatchObject({
      status: 'failed',
      declineReason: 'insufficient_funds',
      capturedAmount: 0,
    });
  });
});

describe('recurrence', () => {
  it('round-trips a plan, a subscription and its invoice', async () => {
    const reference = unique('price');
    const plan = await gateway.createRecurrencePlan(
      { reference, name: 'Club monthly', amount: 3_990, currency: 'brl', interval: 'month', intervalCount: 1 },
      `price:${reference}:plan`,
    );
    expect(plan).toEqual({
      id: expect.any(String),
      reference,
      amount: 3_990,
      currency: 'brl',
      interval: 'month',
      intervalCount: 1,
      createdAt: expect.any(String),
    });
    const buyer = await gateway.createBuyer({ email: 'club@example.com', name: 'Clube' }, `${reference}:buyer`);
    const card = await gateway.tokenizeCard(
      { number: APPROVED, holderName: 'Clube', expirationMonth: '10', expirationYear: '2033', cvv: '999' },
      `${reference}:card`,
    );
    const subscription = await gateway.createSubscription(
      {
        reference: `sub-${reference}`,
        planId: plan.id,
        buyerId: buyer.id,
        cardToken: card.id,
        startDate: '2030-02-01',
      },
      `${reference}:subscription`,
    );
    expect(subscription).toEqual({
      id: expect.any(String),
      reference: `sub-${reference}`,
      planId: plan.id,
      buyerId: buyer.id,
      status: 'active',
      createdAt: expect.any(String),
    });

    const invoice = await gateway.createInvoice(
      {
        subscriptionId: subscription.id,
        amount: 3_990,
        currency: 'brl',
        description: 'February',
        dueDate: '2030-02-01',
        expirationDate: '2030-02-10',
        noFeesInstallments: false,
      },
      `${reference}:invoice:1`,
    );
    expect(invoice).toMatchObject({
      subscriptionId: subscription.id,
      amount: 3_990,
      status: 'pending',
      dueDate: '2030-02-01',
      expirationDate: '2030-02-10',
      paidAt: null,
    });
    expect(await gateway.getInvoice(invoice.id)).toEqual(await simulator.getInvoice(invoice.id));

    const paid = await raw('POST', `/v1/_sandbox/invoices/${invoice.id}/pay`, {});
    expect(paid.status).toBe(200);
    expect(await gateway.getInvoice(invoice.id)).toMatchObject({ status: 'paid', paidAt: expect.any(String) });

    const canceled = await gateway.cancelSubscription(subscription.id, `${reference}:cancel`);
    expect(canceled).toEqual({ ...subscription, status: 'canceled' });
  });

  it('moves a subscription to another plan, billed from its next cycle; refusals are not retryable', async () => {
    const reference = unique('price');
    const plan = (amount: number, interval: 'month' | 'year' = 'month') =>
      gateway.createRecurrencePlan(
        { reference, name: `Club ${amount}`, amount, currency: 'brl', interval, intervalCount: 1 },
        `${reference}:plan:${amount}`,
      );
    const [basic, pro, yearly] = [await plan(3_990), await plan(5_990), await plan(39_900, 'year')];
    const buyer = await gateway.createBuyer({ email: 'club@example.com' }, `${reference}:buyer`);
    const card = await gateway.tokenizeCard(
      { number: APPROVED, holderName: 'Clube', expirationMonth: '10', expirationYear: '2033', cvv: '999' },
      `${reference}:card`,
    );
    const subscription = await gateway.createSubscription(
      { reference, planId: basic.id, buyerId: buyer.id, cardToken: card.id, startDate: '2030-02-01' },
      `${reference}:subscription`,
    );

    const moved = await gateway.changeSubscriptionPlan(subscription.id, pro.id, `${reference}:plan-change`);
    expect(moved).toEqual({ ...subscription, planId: pro.id });
    expect(await gateway.changeSubscriptionPlan(subscription.id, pro.id, `${reference}:plan-change`)).toEqual(moved);
    const billed = await raw('POST', `/v1/_sandbox/subscriptions/${subscription.id}/bill`, {});
    expect(billed.body).toMatchObject({ cycle: 0, status: 'paid', amount: 5_990 });
    expect(await ledger(billed.body.transaction_id)).toEqual([{ kind: 'capture', amount: 5_990 }]);

    const err = await rejection(gateway.changeSubscriptionPlan(subscription.id, yearly.id, `${reference}:to-yearly`));
    expect([err.retryable, err.status, err.type]).toEqual([false, 422, 'request_refused']);
    expect(err.message).toContain('renews every 1 year');
    const noPlan = await raw('POST', `/v1/subscriptions/${subscription.id}/plan`, {}, { 'idempotency-key': reference });
    expect([noPlan.status, noPlan.body.error.type]).toEqual([400, 'invalid_request']);
  });
});

describe('the sandbox recurrence a test clock drives', () => {
  it('bills a cycle once per key, leaves a paid one alone, retries a refused one, and refuses a cycle out of order', async () => {
    const reference = unique('price');
    const plan = await gateway.createRecurrencePlan(
      { reference, name: 'Club', amount: 3_990, currency: 'brl', interval: 'month', intervalCount: 1 },
      `${reference}:plan`,
    );
    const buyer = await gateway.createBuyer({ email: 'club@example.com' }, `${reference}:buyer`);
    const card = await gateway.tokenizeCard(
      { number: APPROVED, holderName: 'Clube', expirationMonth: '10', expirationYear: '2033', cvv: '999' },
      `${reference}:card`,
    );
    const subscription = await gateway.createSubscription(
      { reference, planId: plan.id, buyerId: buyer.id, cardToken: card.id, startDate: '2030-02-01' },
      `${reference}:subscription`,
    );
    const first = await gateway.billSandboxCycle(subscription.id, 0, `${reference}:cycle:0:try:1`);
    expect(first).toMatchObject({ cycle: 0, status: 'paid', amount: 3_990 });
    // The same key again (a retried activity), and another key for a cycle already paid: no second charge.
    expect(await gateway.billSandboxCycle(subscription.id, 0, `${reference}:cycle:0:try:1`)).toEqual(first);
    expect(await gateway.billSandboxCycle(subscription.id, 0, `${reference}:cycle:0:try:2`)).toMatchObject({
      id: first.id,
      status: 'paid',
    });
    expect(await ledger(first.transactionId!)).toEqual([{ kind: 'capture', amount: 3_990 }]);
    // The card is refused from now on: cycle 1 fails, and its retry (another key) charges it again.
    await orm.em
      .getConnection()
      .execute(`update gateway_sim.cards set outcome = 'decline:insufficient_funds' where id = ?`, [card.id]);
    const refused = await gateway.billSandboxCycle(subscription.id, 1, `${reference}:cycle:1:try:1`);
    const retried = await gateway.billSandboxCycle(subscription.id, 1, `${reference}:cycle:1:try:2`);
    expect([refused.status, retried.status, retried.id]).toEqual(['failed', 'failed', refused.id]);
    expect(retried.transactionId).not.toBe(refused.transactionId);
    // Cycle 3 while cycle 1 is unpaid: refused, not retryable.
    const err = await rejection(gateway.billSandboxCycle(subscription.id, 3, `${reference}:cycle:3:try:1`));
    expect([err.retryable, err.status]).toEqual([false, 422]);
    expect(err.message).toContain('unpaid');
  });
});

describe('configuration', () => {
  it('creates the HTTP adapter for GATEWAY=http', async () => {
    const config = loadConfig(testEnv({ GATEWAY: 'http', GATEWAY_URL: baseUrl, GATEWAY_API_KEY: API_KEY }));
    expect(config.GATEWAY_TIMEOUT_MS).toBe(10_000);
    expect(await createGateway(config, orm)).toBeInstanceOf(HttpGateway);
    expect(await createGateway(loadConfig(testEnv()), orm)).toBeInstanceOf(SimulatedGateway);
  });

  it('gives a recurring price created through the API its plan through the HTTP adapter', async () => {
    const api = await startApi({ GATEWAY: 'http', GATEWAY_URL: baseUrl, GATEWAY_API_KEY: API_KEY });
    try {
      expect(api.gateway).toBeInstanceOf(HttpGateway);
      const tenant = await makeTenant(api.orm);
      const before = served.length;
      const res = await api.call('POST', '/api/v1/products/', {
        token: tenant.oat,
        body: {
          organization_id: tenant.org.id,
          name: 'Club',
          prices: [{ currency: 'brl', unit_amount: 4_990, type: 'recurring', interval: 'month' }],
        },
      });
      expect(res.status).toBe(201);
      const price = res.body.prices[0];
      expect(price.gateway_recurrence_plan_id).toEqual(expect.any(String));
      expect(served.slice(before)).toEqual(['POST /v1/plans 201']);
      const plans = await orm.em
        .getConnection()
        .execute('select id, amount::int as amount, interval from gateway_sim.recurrence_plans where reference = ?', [
          price.id,
        ]);
      expect(plans).toEqual([{ id: price.gateway_recurrence_plan_id, amount: 4_990, interval: 'month' }]);
    } finally {
      await api.close();
    }
  });
});
