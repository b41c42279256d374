import { spawnSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { MercadoPagoConfig, Payment } from 'mercadopago';
import { offersRecurringBilling, recurringBillingOf } from '../../gateway/capabilities.ts';
import {
  MercadoPagoGateway,
  MercadoPagoGatewayError,
  MP_IDEMPOTENCY_WINDOW_MS,
} from '../../gateway/mercadopago-adapter.ts';
import {
  GatewayError,
  type CardChargeInput,
  type Chargebacks,
  type KeptCardBrowserTokens,
  type KeptCardLookup,
  type CardGateway,
  type RecurringBilling,
} from '../../gateway/port.ts';
import { fixture, mercadoPagoGateway as gateway, mockMercadoPago, MP } from '../helpers/mercadopago-mock.ts';

/**
 * The Mercado Pago adapter's contract for cards, lookups, refunds and faults, offline
 * (test/helpers/mercadopago-mock.ts): each test asserts the request the SDK sent and maps a
 * response fixture written from the API reference.
 */
const { sent, answer } = mockMercadoPago();

const cardCharge = (overrides: Partial<CardChargeInput> = {}): CardChargeInput => ({
  reference: 'chk_1',
  amount: 19990,
  currency: 'BRL',
  installments: 3,
  noFeesInstallments: false,
  card: { token: 'ff8080814c11e237014c1ff593b57b4d' },
  buyerId: '123456789-jxOV430go9fx2e',
  capture: true,
  description: 'Plano Pro',
  ...overrides,
});

describe('Mercado Pago card payments', () => {
  it('charges a card token: reais, external_reference and X-Idempotency-Key, answer mapped', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-approved'));
    const t = await gateway().chargeCard(cardCharge(), 'charge-key-1');
    expect(sent).toHaveLength(1);
    const request = sent[0]!;
    expect(request.headers['x-idempotency-key']).toBe('charge-key-1');
    expect(request.headers.authorization).toBe('Bearer TEST-0000-token');
    expect(request.body).toEqual({
      transaction_amount: 199.9,
      external_reference: 'charge-key-1',
      metadata: { reference: 'chk_1' },
      notification_url: 'https://billing.example/api/v1/gateway/mercadopago/notifications',
      token: 'ff8080814c11e237014c1ff593b57b4d',
      installments: 3,
      capture: true,
      three_d_secure_mode: 'optional',
      description: 'Plano Pro',
      payer: { type: 'customer', id: '123456789-jxOV430go9fx2e' },
    });
    expect(t).toEqual({
      id: '20359978',
      reference: 'chk_1',
      status: 'succeeded',
      paymentType: 'credit',
      // The buyer paid 3 × R$ 68,71 with the issuer's interest; the sale's own price stays R$ 199,90.
      amount: 20613,
      baseAmount: 19990,
      currency: 'BRL',
      installments: 3,
      installmentAmounts: [6871, 6871, 6871],
      authorizationCode: '301299',
      declineReason: null,
      card: {
        id: '',
        brand: 'visa',
        first4: '4235',
        last4: '5682',
        holderName: 'APRO',
        expirationMonth: '06',
        expirationYear: '2030',
      },
      pix: null,
      boleto: null,
      buyerId: '123456789-jxOV430go9fx2e',
      transactionNumber: '20359978',
      capturedAmount: 19990,
      refundedAmount: 0,
      threeDs: null,
      createdAt: '2026-01-10T14:47:58.000Z',
      confirmedAt: '2026-01-10T14:47:58.000Z',
      // money_release_date: when the ledger (its release report) shows it (decision 0073).
      releaseDate: '2026-01-24T14:47:58.000Z',
    });
  });

  it('pre-authorizes with capture: false, then captures part of it with its own key', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-authorized'));
    const authorized = await gateway().chargeCard(cardCharge({ capture: false, installments: 1 }), 'auth-key');
    expect(sent[0]!.body).toMatchObject({ capture: false, transaction_amount: 199.9 });
    expect(authorized).toMatchObject({ status: 'pre_authorized', capturedAmount: 0, confirmedAt: null });

    answer('PUT', '/v1/payments/20359978', 200, { ...fixture('payment-card-approved'), transaction_amount: 150.01 });
    const captured = await gateway().capture('20359978', 15001, 'capture-key');
    expect(sent[1]).toMatchObject({
      method: 'PUT',
      headers: { 'x-idempotency-key': 'capture-key' },
      body: { capture: true, transaction_amount: 150.01 },
    });
    expect(captured).toMatchObject({ status: 'succeeded', baseAmount: 15001 });
  });

  it('cancels a pre-authorization (PUT status cancelled)', async () => {
    answer('PUT', '/v1/payments/20359978', 200, {
      ...fixture('payment-card-authorized'),
      status: 'cancelled',
      status_detail: 'by_collector',
    });
    const t = await gateway().cancel('20359978', 'cancel-key');
    expect(sent[0]).toMatchObject({ headers: { 'x-idempotency-key': 'cancel-key' }, body: { status: 'cancelled' } });
    expect(t).toMatchObject({ status: 'canceled', declineReason: null });
  });

  it('answers a declined card as a failed transaction with its reason, not an error', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-rejected'));
    const t = await gateway().chargeCard(cardCharge({ installments: 1 }), 'declined-key');
    expect(t).toMatchObject({ status: 'failed', declineReason: 'insufficient_funds', capturedAmount: 0 });
  });

  it("offers 3-D Secure with the buyer present, and answers the issuer's challenge as a pending payment", async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-pending-challenge'));
    const t = await gateway().chargeCard(cardCharge({ initiatedBy: 'buyer' }), 'challenge-key');
    expect(sent[0]!.body).toMatchObject({ three_d_secure_mode: 'optional' });
    expect(sent[0]!.body).not.toHaveProperty('binary_mode');
    expect(t).toMatchObject({
      status: 'pending',
      declineReason: null,
      capturedAmount: 0,
      threeDs: {
        url: 'https://acs-public.tp.mastercard.com/api/v1/browser_challenges',
        creq: expect.stringMatching(/^eyJ/),
      },
    });
  });

  it('never asks for 3-D Secure on a charge without the buyer (binary_mode instead)', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-approved'));
    await gateway().chargeCard(cardCharge({ initiatedBy: 'merchant' }), 'renewal-key');
    expect(sent[0]!.body).toMatchObject({ binary_mode: true });
    expect(sent[0]!.body).not.toHaveProperty('three_d_secure_mode');
  });

  it('names a refusal for want of 3-D Secure (cc_rejected_3ds_mandatory): authentication_required', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-3ds-mandatory'));
    const t = await gateway().chargeCard(cardCharge({ installments: 1 }), '3ds-mandatory-key');
    expect(t).toMatchObject({ status: 'failed', declineReason: 'authentication_required', threeDs: null });
  });

  it('refuses a 4xx as a definite, non-retryable error that says why', async () => {
    answer('POST', '/v1/payments', 400, fixture('error-card-token-not-found'));
    const failure = await gateway()
      .chargeCard(cardCharge(), 'bad-token-key')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MercadoPagoGatewayError);
    expect(failure).toMatchObject({ retryable: false, status: 400, code: 'bad_request' });
    expect((failure as Error).message).toMatch(/answered 400: Card Token not found/);
  });

  it('refuses raw card data: Mercado Pago tokenizes in the browser', async () => {
    const raw = { number: '4111111111111111', holderName: 'A', expirationMonth: '1', expirationYear: '30', cvv: '123' };
    await expect(gateway().chargeCard(cardCharge({ card: raw }), 'raw-key')).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/browser tokenization/),
    });
    expect(sent).toHaveLength(0);
  });
});

describe('Mercado Pago lookups and refunds', () => {
  it('gets a payment, and a 404 is null', async () => {
    answer('GET', '/v1/payments/20359978', 200, fixture('payment-card-approved'));
    expect(await gateway().getTransaction('20359978')).toMatchObject({ id: '20359978', status: 'succeeded' });
    answer('GET', '/v1/payments/404404', 404, {
      message: 'Payment not found',
      error: 'not_found',
      status: 404,
      cause: [{ code: 2000, description: 'Payment not found' }],
    });
    expect(await gateway().getTransaction('404404')).toBeNull();
  });

  it('finds the payment of an idempotency key by external_reference, or null once its window has passed', async () => {
    const search = (p: string) => p.startsWith('/v1/payments/search?');
    answer('GET', search, 200, {
      paging: { total: 1, limit: 30, offset: 0 },
      results: [fixture('payment-card-approved')],
    });
    expect(await gateway().findTransactionByIdempotencyKey('charge-key-1')).toMatchObject({ id: '20359978' });
    const query = new URL(sent[0]!.path, MP).searchParams;
    expect(query.get('external_reference')).toBe('charge-key-1');
    expect(query.get('sort')).toBe('date_created');
    expect(query.get('criteria')).toBe('desc');
    // An empty search proves nothing while the key's window is open (the search lags, decision 0067).
    let now = Date.parse('2026-01-31T12:00:00Z');
    const mp = gateway(2000, () => new Date(now));
    answer('GET', search, 200, { paging: { total: 0, limit: 30, offset: 0 }, results: [] });
    await expect(mp.findTransactionByIdempotencyKey('never-used')).rejects.toMatchObject({ retryable: true });
    now += MP_IDEMPOTENCY_WINDOW_MS;
    answer('GET', search, 200, { paging: { total: 0, limit: 30, offset: 0 }, results: [] });
    expect(await mp.findTransactionByIdempotencyKey('never-used')).toBeNull();
  });

  it('sends a lost create again with its key when the search does not show its payment yet', async () => {
    const mp = gateway();
    answer('POST', '/v1/payments', 504, { message: 'Gateway Timeout', error: 'gateway_timeout', status: 504 });
    await expect(mp.chargeCard(cardCharge(), 'charge-key-1')).rejects.toMatchObject({ retryable: true });
    answer('GET', (p) => p.startsWith('/v1/payments/search?'), 200, { paging: { total: 0 }, results: [] });
    answer('POST', '/v1/payments', 201, fixture('payment-card-approved'));
    expect(await mp.findTransactionByIdempotencyKey('charge-key-1')).toMatchObject({ id: '20359978' });
    expect(sent.map((s) => `${s.method} ${s.path.split('?')[0]} ${s.headers['x-idempotency-key'] ?? ''}`)).toEqual([
      'POST /v1/payments charge-key-1',
      'GET /v1/payments/search ',
      'POST /v1/payments charge-key-1',
    ]);
  });

  it('refunds part of a payment in reais and answers the payment as it stands', async () => {
    answer('POST', '/v1/payments/20359978/refunds', 201, fixture('refund-created'));
    answer('GET', '/v1/payments/20359978', 200, fixture('payment-card-partially-refunded'));
    const t = await gateway().refund('20359978', 5005, 'refund-key');
    expect(sent[0]).toMatchObject({ headers: { 'x-idempotency-key': 'refund-key' }, body: { amount: 50.05 } });
    expect(t).toMatchObject({ status: 'partial_refunded', refundedAmount: 5005, capturedAmount: 19990 });
  });
});

describe('Mercado Pago faults: who retries, and never twice', () => {
  it('answers a 5xx as retryable without the SDK retrying; the retry with the same key succeeds', async () => {
    answer('POST', '/v1/payments', 503, { message: 'Service unavailable', error: 'internal_error', status: 503 });
    await expect(gateway().chargeCard(cardCharge(), 'charge-key-1')).rejects.toMatchObject({
      retryable: true,
      status: 503,
    });
    expect(sent).toHaveLength(1); // the SDK's own retries are off: Temporal's activity retries
    answer('POST', '/v1/payments', 201, fixture('payment-card-approved'));
    const t = await gateway().chargeCard(cardCharge(), 'charge-key-1');
    expect(t.status).toBe('succeeded');
    expect(sent.map((s) => s.headers['x-idempotency-key'])).toEqual(['charge-key-1', 'charge-key-1']);
  });

  it('times out as retryable, and the payment made meanwhile is found by its key, not charged again', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-approved'), 1000);
    const failure = await gateway(200)
      .chargeCard(cardCharge(), 'charge-key-1')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({ retryable: true, status: 0 });
    answer('GET', (p) => p.startsWith('/v1/payments/search?'), 200, { results: [fixture('payment-card-approved')] });
    const found = await gateway().findTransactionByIdempotencyKey('charge-key-1');
    expect(found).toMatchObject({ id: '20359978', status: 'succeeded', amount: 20613, baseAmount: 19990 });
    // The POST's interceptor was used once (afterEach asserts none is left; the reply it never got is
    // not recorded) and nothing else but the search reached Mercado Pago: no second charge.
    expect(sent.map((s) => `${s.method} ${s.path.split('?')[0]}`)).toEqual(['GET /v1/payments/search']);
  });

  it('builds a client per call: no idempotency key leaks from one call into the next', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-authorized'));
    answer('PUT', '/v1/payments/20359978', 200, fixture('payment-card-approved'));
    const mp = gateway();
    await mp.chargeCard(cardCharge({ capture: false }), 'auth-key');
    await mp.capture('20359978', null, 'capture-key');
    expect(sent.map((s) => s.headers['x-idempotency-key'])).toEqual(['auth-key', 'capture-key']);
    expect(sent[1]!.body).toEqual({ capture: true });
  });

  it('(the SDK trap it avoids: a shared config keeps the previous call’s key, sdk-nodejs#481)', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-card-authorized'));
    answer('PUT', '/v1/payments/20359978', 200, fixture('payment-card-approved'));
    const shared = new Payment(new MercadoPagoConfig({ accessToken: 'T', options: { maxRetries: 0 } }));
    await shared.create({ body: { transaction_amount: 1 }, requestOptions: { idempotencyKey: 'first' } });
    await shared.capture({ id: '20359978' });
    expect(sent.map((s) => s.headers['x-idempotency-key'])).toEqual(['first', 'first']);
  });
});

describe('Mercado Pago recurrence', () => {
  it('is not offered: renewals charge the saved card with a new payment (recurrence_billing: manual)', () => {
    expect(offersRecurringBilling(gateway())).toBe(false);
    expect(() => recurringBillingOf(gateway())).toThrow(
      expect.objectContaining({ retryable: false, message: expect.stringMatching(/recurrence_billing manual/) }),
    );
  });

  it('has no method that answers "unsupported": it implements only card payments, pix and boleto, and its vault', () => {
    // Fails to compile once the adapter claims RecurringBilling again.
    // @ts-expect-error Mercado Pago offers no RecurringBilling
    const recurring: RecurringBilling = gateway();
    expect(recurring).toBeDefined();
    const ported: (keyof CardGateway)[] = [
      'chargeCard',
      'capture',
      'cancel',
      'getTransaction',
      'findTransactionByIdempotencyKey',
      'refund',
      'createPixCharge',
      'createBoleto',
      'tokenizeCard',
      'keepBrowserCard',
      'ledger',
    ];
    // The optional capabilities it offers (gateway/capabilities.ts): chargebacks, the card updater's kept
    // cards, and a kept card's id for the browser to mint its token with the security code (decision 0078).
    const capabilities: (keyof (Chargebacks & KeptCardLookup & KeptCardBrowserTokens))[] = [
      'getChargeback',
      'keptCard',
      'keptCardBrowserId',
    ];
    // Its own helpers, shared with mercadopago-cards.ts; anything else public would be a port method.
    const helpers = ['config', 'sdk'];
    const methods = Object.getOwnPropertyNames(MercadoPagoGateway.prototype).filter(
      (name) => name !== 'constructor' && !['common', 'payments', 'call', 'api'].includes(name),
    );
    expect(methods.sort()).toEqual([...ported, ...capabilities, ...helpers].sort());
    expect(gateway().boletoPayerRequires).toEqual(['address', 'full_name']);
  });
});

describe('the transport the tests intercept', () => {
  it("is the one a plain Node process uses: its built-in fetch honours undici's global MockAgent", () => {
    const script = `
      import { MockAgent, setGlobalDispatcher } from 'undici';
      import { MercadoPagoConfig, Payment } from 'mercadopago';
      const agent = new MockAgent();
      agent.disableNetConnect();
      setGlobalDispatcher(agent);
      let key = null;
      agent.get('${MP}').intercept({ method: 'POST', path: '/v1/payments' })
        .reply(201, (opts) => { key = opts.headers['X-Idempotency-Key']; return { id: 7, status: 'approved' }; });
      const client = new Payment(new MercadoPagoConfig({ accessToken: 'T', options: { maxRetries: 0, idempotencyKey: 'k-7' } }));
      const payment = await client.create({ body: { transaction_amount: 1 } });
      console.log(JSON.stringify({ id: payment.id, key }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ id: 7, key: 'k-7' });
  });
});
