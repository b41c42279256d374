import { describe, expect, it } from '@jest/globals';
import { MercadoPagoGateway } from '../../gateway/mercadopago-adapter.ts';
import { GatewayError, type CardChargeInput } from '../../gateway/port.ts';
import { fixture, mockMercadoPago, NOTIFICATION_URL } from '../helpers/mercadopago-mock.ts';

/**
 * Kept cards at Mercado Pago, offline (test/helpers/mercadopago-mock.ts): a browser's single-use
 * token becomes a customer's card, each charge of it (a checkout, every renewal, an extra charge)
 * mints a token of its own, and card data reaches Mercado Pago only when the operator accepts it.
 */
const { sent, answer } = mockMercadoPago();

const gateway = (acceptCardData = false) =>
  new MercadoPagoGateway({
    accessToken: 'TEST-0000-token',
    timeoutMs: 2000,
    notificationUrl: NOTIFICATION_URL,
    acceptCardData,
  });
const owner = { email: 'ana@example.com', name: 'Ana Maria Souza' };
/** A card kept before decision 0074 (no payment method in its id): still charged as it was. */
const KEPT = 'mpcard:1234567890-abcdEFGhijKLmn:9876543210';
/** A card kept now: its id names the payment method and issuer a payment with it sends. */
const KEPT_WITH_METHOD = `${KEPT}:master:24`;

describe("keeping the browser's card", () => {
  it('finds no customer, creates one, keeps the card: the answer names both', async () => {
    answer('GET', (p) => p.startsWith('/v1/customers/search'), 200, fixture('customer-search-empty'));
    answer('POST', '/v1/customers', 201, fixture('customer-created'));
    answer('POST', '/v1/customers/1234567890-abcdEFGhijKLmn/cards', 201, fixture('customer-card-created'));

    const card = await gateway().keepBrowserCard('ff8080814c11e237014c1ff593b57b4d', owner, 'checkout:c1:card:abc');

    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /v1/customers/search?email=ana%40example.com',
      'POST /v1/customers',
      'POST /v1/customers/1234567890-abcdEFGhijKLmn/cards',
    ]);
    expect(sent[1]!.body).toEqual({ email: 'ana@example.com', first_name: 'Ana', last_name: 'Maria Souza' });
    expect(sent[1]!.headers['x-idempotency-key']).toBe('checkout:c1:card:abc:customer');
    expect(sent[2]!.body).toEqual({ token: 'ff8080814c11e237014c1ff593b57b4d' });
    expect(sent[2]!.headers['x-idempotency-key']).toBe('checkout:c1:card:abc:card');
    expect(card).toEqual({
      id: KEPT_WITH_METHOD,
      brand: 'mastercard',
      first4: '5031',
      last4: '6351',
      holderName: 'APRO',
      expirationMonth: '11',
      expirationYear: '2030',
    });
  });

  it('keeps it with the customer the e-mail already has (no second customer)', async () => {
    answer('GET', (p) => p.startsWith('/v1/customers/search'), 200, fixture('customer-search-found'));
    answer('POST', '/v1/customers/1234567890-abcdEFGhijKLmn/cards', 201, fixture('customer-card-created'));
    const card = await gateway().keepBrowserCard('tok', owner, 'k');
    expect(sent.map((s) => s.method)).toEqual(['GET', 'POST']);
    expect(card.id).toBe(KEPT_WITH_METHOD);
  });

  // The customers API's error 101 ("the customer already exist."): another checkout of the same buyer
  // created it between our search and our create.
  it('finds the customer a racing create made instead of refusing the card', async () => {
    answer('GET', (p) => p.startsWith('/v1/customers/search'), 200, fixture('customer-search-empty'));
    answer('POST', '/v1/customers', 400, fixture('error-customer-already-exists'));
    answer('GET', (p) => p.startsWith('/v1/customers/search'), 200, fixture('customer-search-found'));
    answer('POST', '/v1/customers/1234567890-abcdEFGhijKLmn/cards', 201, fixture('customer-card-created'));
    const card = await gateway().keepBrowserCard('tok', owner, 'k');
    expect(sent.map((s) => `${s.method} ${s.path.split('?')[0]}`)).toEqual([
      'GET /v1/customers/search',
      'POST /v1/customers',
      'GET /v1/customers/search',
      'POST /v1/customers/1234567890-abcdEFGhijKLmn/cards',
    ]);
    expect(card.id).toBe(KEPT_WITH_METHOD);
  });

  it('retries later when the customer exists yet its search does not show it', async () => {
    answer('GET', (p) => p.startsWith('/v1/customers/search'), 200, fixture('customer-search-empty'));
    answer('POST', '/v1/customers', 400, fixture('error-customer-already-exists'));
    answer('GET', (p) => p.startsWith('/v1/customers/search'), 200, fixture('customer-search-empty'));
    await expect(gateway().keepBrowserCard('tok', owner, 'k')).rejects.toMatchObject({ retryable: true });
  });

  it("without the buyer's e-mail nothing is sent; a spent token is a refusal, not retried", async () => {
    await expect(gateway().keepBrowserCard('tok', { email: null, name: 'Ana' }, 'k')).rejects.toMatchObject({
      retryable: false,
    });
    expect(sent).toEqual([]);

    answer('GET', (p) => p.startsWith('/v1/customers/search'), 200, fixture('customer-search-found'));
    answer('POST', '/v1/customers/1234567890-abcdEFGhijKLmn/cards', 400, fixture('error-card-token-not-found'));
    const spent = gateway().keepBrowserCard('used-token', owner, 'k2');
    await expect(spent).rejects.toBeInstanceOf(GatewayError);
    await expect(spent).rejects.toMatchObject({ retryable: false, status: 400 });
  });
});

const charge = (overrides: Partial<CardChargeInput> = {}): CardChargeInput => ({
  reference: 'sub_1:period:2',
  amount: 9900,
  currency: 'BRL',
  installments: 1,
  noFeesInstallments: false,
  card: { token: KEPT },
  capture: true,
  ...overrides,
});

describe('charging a kept card', () => {
  it('mints a token of the saved card for this charge and pays as its customer', async () => {
    answer('POST', '/v1/card_tokens', 201, fixture('card-token-from-saved-card'));
    answer('POST', '/v1/payments', 201, fixture('payment-card-approved'));

    const t = await gateway().chargeCard(charge(), 'subscription:s1:period:2:charge');

    expect(sent[0]!.body).toEqual({ customer_id: '1234567890-abcdEFGhijKLmn', card_id: '9876543210' });
    expect(sent[0]!.headers['x-idempotency-key']).toBe('subscription:s1:period:2:charge:token');
    expect(sent[1]!.headers['x-idempotency-key']).toBe('subscription:s1:period:2:charge');
    expect(sent[1]!.body).toMatchObject({
      transaction_amount: 99,
      token: 'e0e5c5d3b8c1d2e4f6a7b8c9d0e1f2a3',
      installments: 1,
      capture: true,
      external_reference: 'subscription:s1:period:2:charge',
      payer: { type: 'customer', id: '1234567890-abcdEFGhijKLmn' },
    });
    expect(t.status).toBe('succeeded');
  });

  it('the next renewal mints another token: a token is never used twice', async () => {
    answer('POST', '/v1/card_tokens', 201, fixture('card-token-from-saved-card'));
    answer('POST', '/v1/payments', 201, fixture('payment-card-approved'));
    answer('POST', '/v1/card_tokens', 201, { ...fixture('card-token-from-saved-card'), id: 'second-token' });
    answer('POST', '/v1/payments', 201, fixture('payment-card-approved'));
    await gateway().chargeCard(charge(), 'period:2');
    await gateway().chargeCard(charge(), 'period:3');
    const tokens = sent.filter((s) => s.path === '/v1/payments').map((s) => s.body!.token);
    expect(tokens).toEqual(['e0e5c5d3b8c1d2e4f6a7b8c9d0e1f2a3', 'second-token']);
  });
});

describe('card data', () => {
  const data = {
    number: '5031 4332 1540 6351',
    holderName: 'APRO',
    expirationMonth: '11',
    expirationYear: '30',
    cvv: '123',
  };

  it('is refused unless the operator accepts full PCI DSS scope, before any request', async () => {
    const refused = gateway(false).tokenizeCard(data, 'k', owner);
    await expect(refused).rejects.toMatchObject({ retryable: false });
    await expect(refused).rejects.toThrow(/ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE/);
    expect(sent).toEqual([]);
  });

  it('accepted, is tokenized on the server and the card kept as any browser token', async () => {
    answer('POST', '/v1/card_tokens', 201, fixture('card-token-from-card-data'));
    answer('GET', (p) => p.startsWith('/v1/customers/search'), 200, fixture('customer-search-found'));
    answer('POST', '/v1/customers/1234567890-abcdEFGhijKLmn/cards', 201, fixture('customer-card-created'));
    const card = await gateway(true).tokenizeCard(data, 'direct:k', owner);
    expect(sent[0]!.body).toEqual({
      card_number: '5031433215406351',
      expiration_month: '11',
      expiration_year: '2030',
      security_code: '123',
      cardholder: { name: 'APRO' },
    });
    expect(sent[2]!.body).toEqual({ token: 'ff8080814c11e237014c1ff593b57b4d' });
    expect(card.id).toBe(KEPT_WITH_METHOD);
  });
});
