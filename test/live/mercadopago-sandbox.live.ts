import { describe, expect, it } from '@jest/globals';
import type { BuyerInput, CardChargeInput, CardToken, GatewayTransaction } from '../../gateway/port.ts';
import {
  brasiliaDate,
  browserCardToken,
  eventually,
  expectWellFormed,
  key,
  keptCardBrowserToken,
  keptTestCard,
  mercadoPagoApi,
  RUN,
  sandboxEnv,
  sandboxGateway,
  TEST_CARD_CVV,
  TEST_CARD_EXPIRY,
  TEST_CARDS,
  TEST_HOLDER_CPF,
  type TestHolder,
} from './mercadopago-sandbox-setup.ts';

/**
 * Opt-in: the real Mercado Pago adapter end to end against Mercado Pago's own sandbox, with a test
 * seller's credentials (docs/deployment.md, "Going live with Mercado Pago"), so an operator can check it
 * before going live: `npm run test:mercadopago-sandbox`. The offline contract tests
 * (test/gateway/mercadopago-*.test.ts) check our requests and the mapping of fixtures written from the
 * reference; this checks that Mercado Pago itself answers what those fixtures say.
 *
 * Not part of `npm test` (its jest config matches only `*.test.ts`), and NOT RUN in this repository's
 * CI, which has neither test credentials nor the network: it is typechecked and linted there, and was
 * run here only without credentials, when it skips. Every call takes an idempotency key of this run.
 */

const env = sandboxEnv();
const skipped = env.accessToken ? null : 'MERCADOPAGO_SANDBOX_ACCESS_TOKEN is not set';
const cardsSkipped = skipped ?? (env.publicKey ? null : 'MERCADOPAGO_SANDBOX_PUBLIC_KEY is not set');
if (skipped) {
  process.stdout.write(
    `Mercado Pago sandbox suite skipped: ${skipped} (a test seller's access token; see docs/deployment.md, "Going live with Mercado Pago").\n`,
  );
} else if (cardsSkipped) {
  process.stdout.write(`Mercado Pago sandbox card tests skipped: ${cardsSkipped} (browser card tokens need it).\n`);
}
const withAccount = skipped ? describe.skip : describe;
const withCards = cardsSkipped ? describe.skip : describe;

const gateway = () => sandboxGateway(env.accessToken!);
const owner = (name: string) => ({ email: env.payerEmail, name });
const reference = (step: string) => `ref-${RUN}-${step}`;
const buyer: BuyerInput = { email: env.payerEmail, name: 'Maria Teste', taxId: TEST_HOLDER_CPF };

const keep = (number: string, holder: TestHolder, step: string) =>
  keptTestCard(gateway(), env.publicKey!, { number, holder, owner: owner(holder), step });

/** The approved Mastercard, kept once per run and charged by several tests, as renewals charge one card. */
let approved: Promise<CardToken> | null = null;
const approvedCard = () => (approved ??= keep(TEST_CARDS.mastercard, 'APRO', 'keep-apro'));

/** A charge of a kept card under this run's key for `step`; our reference names the step too. */
async function charge(step: string, card: CardToken, overrides: Partial<CardChargeInput> = {}) {
  const input: CardChargeInput = {
    reference: reference(step),
    amount: 10990,
    currency: 'BRL',
    installments: 1,
    noFeesInstallments: false,
    card: { token: card.id },
    capture: true,
    description: 'Billing engine sandbox suite',
    ...overrides,
  };
  const t = await gateway().chargeCard(input, key(step));
  expectWellFormed(t, input.reference);
  return t;
}

const customerOf = (card: CardToken) => card.id.split(':')[1];

withCards('Mercado Pago sandbox: a browser card kept and charged', () => {
  it('keeps a card tokenized as MercadoPago.js does, with a customer found or made by e-mail', async () => {
    const card = await approvedCard();
    expect(card.id).toMatch(/^mpcard:[^:]+:[^:]+$/);
    expect(card).toMatchObject({
      brand: 'mastercard',
      first4: TEST_CARDS.mastercard.slice(0, 4),
      last4: TEST_CARDS.mastercard.slice(-4),
      holderName: 'APRO',
      expirationMonth: String(TEST_CARD_EXPIRY.month),
      expirationYear: String(TEST_CARD_EXPIRY.year),
    });
  });

  it('charges it in 3 installments: succeeded, amounts in cents, as its customer', async () => {
    const card = await approvedCard();
    const t = await charge('charge-3x', card, { installments: 3 });
    expect(t).toMatchObject({
      status: 'succeeded',
      paymentType: 'credit',
      baseAmount: 10990,
      installments: 3,
      declineReason: null,
      refundedAmount: 0,
      buyerId: customerOf(card),
      pix: null,
      boleto: null,
    });
    // With interest (the account's setting) the buyer pays more than the price, never less.
    expect(t.amount).toBeGreaterThanOrEqual(10990);
    expect(t.capturedAmount).toBe(t.amount);
    expect(t.card).toMatchObject({ last4: card.last4, first4: card.first4 });
    expect(t.confirmedAt).not.toBeNull();
    // When its money reaches the balance (money_release_date), which its release report is dated by (0073).
    expect(Date.parse(t.releaseDate!)).toBeGreaterThanOrEqual(Date.parse(t.confirmedAt!) - 60_000);
  });

  it('charges the same kept card again, as a renewal does: a new payment, the same customer', async () => {
    const card = await approvedCard();
    const first = await charge('renewal-1', card, { amount: 4990 });
    const second = await charge('renewal-2', card, { amount: 4990 });
    expect(second.id).not.toBe(first.id);
    for (const t of [first, second]) {
      expect(t).toMatchObject({ status: 'succeeded', amount: 4990, buyerId: customerOf(card) });
    }
  });

  it('answers a declined card (FUND) as a failed transaction with its reason, not an error', async () => {
    const card = await keep(TEST_CARDS.visa, 'FUND', 'keep-fund');
    expect(card).toMatchObject({ brand: 'visa', last4: TEST_CARDS.visa.slice(-4) });
    const t = await charge('charge-fund', card);
    expect(t).toMatchObject({ status: 'failed', declineReason: 'insufficient_funds', capturedAmount: 0 });
  });
});

withCards('Mercado Pago sandbox: pre-authorizations, refunds and the lost answer', () => {
  it('pre-authorizes (capture: false), then captures part of it', async () => {
    const authorized = await charge('preauth-capture', await approvedCard(), { amount: 8000, capture: false });
    expect(authorized).toMatchObject({ status: 'pre_authorized', capturedAmount: 0, confirmedAt: null });
    const captured = await gateway().capture(authorized.id, 5000, key('capture-part'));
    expect(captured).toMatchObject({ id: authorized.id, status: 'succeeded', baseAmount: 5000, capturedAmount: 5000 });
  });

  it('pre-authorizes, then cancels it', async () => {
    const authorized = await charge('preauth-cancel', await approvedCard(), { amount: 3000, capture: false });
    expect(authorized.status).toBe('pre_authorized');
    const canceled = await gateway().cancel(authorized.id, key('cancel-preauth'));
    expect(canceled).toMatchObject({ id: authorized.id, status: 'canceled', capturedAmount: 0 });
  });

  it('refunds part of a payment, then the rest', async () => {
    const paid = await charge('refunded', await approvedCard(), { amount: 6000 });
    expect(paid.status).toBe('succeeded');
    const part = await gateway().refund(paid.id, 2500, key('refund-part'));
    expect(part).toMatchObject({ id: paid.id, status: 'partial_refunded', refundedAmount: 2500 });
    const rest = await gateway().refund(paid.id, 3500, key('refund-rest'));
    expect(rest).toMatchObject({ id: paid.id, status: 'refunded', refundedAmount: 6000 });
  });

  it('finds a charge by its idempotency key once the search index has it (polled)', async () => {
    const paid = await charge('found-by-key', await approvedCard(), { amount: 1500 });
    const found = await eventually(() => gateway().findTransactionByIdempotencyKey(key('found-by-key')));
    expect(found).toMatchObject({ id: paid.id, status: 'succeeded', baseAmount: 1500 });
    expectWellFormed(found, reference('found-by-key'));
  });
});

withCards('Mercado Pago sandbox: what the engine relies on to never lose or take money twice (issue 33 §1)', () => {
  it('a create sent again with its key answers the payment the key made: no second payment (decision 0067)', async () => {
    const card = await approvedCard();
    const first = await charge('same-key', card, { amount: 1200 });
    const again = await charge('same-key', card, { amount: 1200 });
    expect(again.id).toBe(first.id);
    expect(again).toMatchObject({ status: 'succeeded', baseAmount: 1200 });
  });

  it('a payment in manual review (CONT) is pending, not refused, and can be cancelled before another try', async () => {
    const card = await keep(TEST_CARDS.visa, 'CONT', 'keep-cont');
    const t = await charge('charge-cont', card, { amount: 1300 });
    expect(t).toMatchObject({ status: 'pending', declineReason: null, capturedAmount: 0 });
    const canceled = await gateway().cancel(t.id, key('cancel-cont'));
    expect(canceled).toMatchObject({ id: t.id, status: 'canceled', capturedAmount: 0 });
  });

  it('a merchant-initiated charge goes in binary_mode: the same card is refused at once, never left pending', async () => {
    const card = await keep(TEST_CARDS.visa, 'CONT', 'keep-cont-binary');
    const t = await charge('charge-cont-binary', card, { amount: 1400, initiatedBy: 'merchant' });
    expect(t.status).toBe('failed');
  });

  it('refunds an instalment payment with interest in full, measured against the price (decision 0064)', async () => {
    const paid = await charge('refund-3x', await approvedCard(), { amount: 9000, installments: 3 });
    expect(paid).toMatchObject({ status: 'succeeded', baseAmount: 9000 });
    const refunded = await gateway().refund(paid.id, paid.baseAmount, key('refund-3x-all'));
    expect(refunded).toMatchObject({ id: paid.id, status: 'refunded', refundedAmount: 9000 });
  });
});

withCards('Mercado Pago sandbox: after the sale and 3-D Secure (issue 33 §3, §4)', () => {
  it('a refund made outside the engine (as the panel makes it) shows on the payment the engine reads back', async () => {
    const paid = await charge('outside-refund', await approvedCard(), { amount: 3000 });
    await mercadoPagoApi('POST', `/v1/payments/${paid.id}/refunds`, { amount: 10 }, key('outside-refund-panel'));
    const read = await eventually(async () => {
      const t = await gateway().getTransaction(paid.id);
      return t && t.refundedAmount > 0 ? t : null;
    });
    expect(read).toMatchObject({ id: paid.id, refundedAmount: 1000, baseAmount: 3000 });
  });

  it('reads a kept card back as it stands (what a Card Updater notice is checked against)', async () => {
    const card = await approvedCard();
    expect(await gateway().keptCard(card.id)).toMatchObject({ id: card.id, brand: 'mastercard', last4: card.last4 });
    expect(await gateway().getChargeback('99999999999')).toBeNull();
  });

  it("a kept card paid with the buyer present: its token minted from the card's id and security code, as its customer", async () => {
    const card = await approvedCard();
    const token = await keptCardBrowserToken(env.publicKey!, card.id.split(':')[2]!, TEST_CARD_CVV);
    const t = await charge('kept-card-present', { id: token } as CardToken, {
      amount: 2500,
      keptCardId: card.id,
      payer: buyer,
    });
    if (t.status === 'pending') expect(t.threeDs).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
    else expect(t).toMatchObject({ status: 'succeeded', buyerId: customerOf(card), card: { last4: card.last4 } });
  });

  it('a buyer-present card payment offers 3-D Secure: approved at once, or waiting on the issuer’s challenge', async () => {
    const token = await browserCardToken(env.publicKey!, TEST_CARDS.mastercard, 'APRO');
    const t = await charge('three-ds', { id: token } as CardToken, {
      amount: 2500,
      cardMethod: { paymentMethodId: 'master', issuerId: null },
      payer: buyer,
    });
    if (t.status === 'pending') expect(t.threeDs).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
    else expect(t).toMatchObject({ status: 'succeeded', threeDs: null });
  });
});

withAccount('Mercado Pago sandbox: the release report is the ledger reconciliation reads (issue 33 §5)', () => {
  it(
    'asks for yesterday’s report once, then reads its rows in signed cents',
    async () => {
      const from = new Date(`${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`);
      const window = { from, to: new Date(from.getTime() + 86_400_000) };
      const rows = await eventually(
        () =>
          gateway()
            .ledger(window)
            .catch((err: { retryable?: boolean }) => (err.retryable ? null : Promise.reject(err))),
        10 * 60_000,
        20_000,
      );
      for (const row of rows) expect(Number.isSafeInteger(row.amount)).toBe(true);
    },
    11 * 60_000,
  );
});

withAccount('Mercado Pago sandbox: card data on the server (ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE)', () => {
  it('tokenizes card data with the access token, keeps the card and charges it', async () => {
    const card = await sandboxGateway(env.accessToken!, true).tokenizeCard(
      {
        number: TEST_CARDS.mastercard,
        holderName: 'APRO',
        expirationMonth: String(TEST_CARD_EXPIRY.month),
        expirationYear: String(TEST_CARD_EXPIRY.year).slice(-2),
        cvv: TEST_CARD_CVV,
      },
      key('tokenize'),
      owner('APRO'),
    );
    expect(card).toMatchObject({ brand: 'mastercard', last4: TEST_CARDS.mastercard.slice(-4) });
    const t = await charge('charge-server-card', card, { amount: 2000 });
    expect(t).toMatchObject({ status: 'succeeded', amount: 2000 });
  });
});

withAccount('Mercado Pago sandbox: lookups, pix and boleto', () => {
  it('answers null for a payment it does not have, and for a key never used', async () => {
    expect(await gateway().getTransaction('99999999999')).toBeNull();
    expect(await gateway().findTransactionByIdempotencyKey(key('never-used'))).toBeNull();
  });

  it('creates a pix charge, pending with its QR code until it expires, and cancels it', async () => {
    const before = Date.now();
    const t: GatewayTransaction = await gateway().createPixCharge(
      { reference: reference('pix'), amount: 1990, currency: 'BRL', buyer, expiresInSeconds: 1800 },
      key('pix'),
    );
    expectWellFormed(t, reference('pix'));
    expect(t).toMatchObject({ status: 'pending', paymentType: 'pix', amount: 1990, capturedAmount: 0, boleto: null });
    expect(t.pix?.qrCode).toMatch(/^000201/); // a BR Code (EMV) payload
    expect(t.pix?.qrCodeImage).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]{100}/);
    const expiresAt = Date.parse(t.pix?.expiresAt ?? '');
    expect(expiresAt).toBeGreaterThan(before + 25 * 60_000);
    expect(expiresAt).toBeLessThan(before + 35 * 60_000);
    const canceled = await gateway().cancel(t.id, key('cancel-pix'));
    expect(canceled).toMatchObject({ id: t.id, status: 'canceled' });
  });

  it('creates a boleto with its digitable line and due date, and cancels it', async () => {
    const dueDate = brasiliaDate(3);
    // Mercado Pago prints (and requires) the payer's address on a boleto.
    const address = {
      line1: 'Av. Paulista, 1578 - Bela Vista',
      city: 'São Paulo',
      state: 'SP',
      postal_code: '01310-200',
      country: 'BR',
    };
    const t = await gateway().createBoleto(
      { reference: reference('boleto'), amount: 2590, currency: 'BRL', buyer: { ...buyer, address }, dueDate },
      key('boleto'),
    );
    expectWellFormed(t, reference('boleto'));
    expect(t).toMatchObject({ status: 'pending', paymentType: 'boleto', amount: 2590, capturedAmount: 0, pix: null });
    expect(t.boleto?.digitableLine.replace(/\D/g, '')).toHaveLength(47);
    expect(t.boleto?.barcode.replace(/\D/g, '')).toHaveLength(44);
    expect(t.boleto?.dueDate).toBe(dueDate);
    expect(t.boleto?.url).toMatch(/^https:\/\//);
    const canceled = await gateway().cancel(t.id, key('cancel-boleto'));
    expect(canceled).toMatchObject({ id: t.id, status: 'canceled' });
  });
});
