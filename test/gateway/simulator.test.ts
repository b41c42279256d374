import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { openOrm, type Orm } from '../../db/orm.ts';
import { signCallback, verifyCallbackSignature } from '../../gateway/callback-signature.ts';
import { dueDateFactor } from '../../gateway/payment-documents.ts';
import { GatewayError, type CardInput, type GatewayCallback, type GatewayTransaction } from '../../gateway/port.ts';
import { SimulatedGateway } from '@billing/simulated-gateway';
import { cardBrand, isLuhnValid, TEST_CARDS } from '../../gateway/test-cards.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { until } from '../helpers/processes.ts';
import { scanQrPng } from '../helpers/qr.ts';

const SECRET = 'simulator-test-callback-secret-0123456789';

/** Our callback endpoint, played by a tiny HTTPS server with the test run's self-signed certificate. */
interface Received {
  signature: string;
  raw: string;
  body: GatewayCallback;
}
let receiver: https.Server;
let receiverUrl: string;
let received: Received[] = [];
/** Status the receiver answers with next (then 200 again), to exercise retries. */
let failDeliveries = 0;

let orm: Orm;
let gateway: SimulatedGateway;

beforeAll(async () => {
  orm = await openOrm(TEST_DATABASE_URL, 8);
  receiver = https.createServer(
    {
      cert: await readFile(path.join(REPO_ROOT, '.certs/localhost.crt')),
      key: await readFile(path.join(REPO_ROOT, '.certs/localhost.key')),
    },
    (req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (raw += c));
      req.on('end', () => {
        if (failDeliveries > 0) {
          failDeliveries -= 1;
          res.writeHead(503).end();
          return;
        }
        received.push({ signature: String(req.headers['x-gateway-signature']), raw, body: JSON.parse(raw) });
        res.writeHead(204).end();
      });
    },
  );
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v1/gateway/callbacks`;
  gateway = new SimulatedGateway(orm, { callbackUrl: receiverUrl, callbackSecret: SECRET });
});

afterAll(async () => {
  await gateway.settleCallbacks();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await orm.close();
});

beforeEach(() => {
  received = [];
  failDeliveries = 0;
  gateway.now = () => new Date();
});

const key = (label = 'k') => `test:${label}:${uuidv7()}`;
const card = (number: string, overrides: Partial<CardInput> = {}): CardInput => ({
  number,
  holderName: 'MARIA SILVA',
  expirationMonth: '12',
  expirationYear: String(new Date().getUTCFullYear() + 3),
  cvv: '123',
  ...overrides,
});

function charge(
  number: string,
  options: {
    amount?: number;
    installments?: number;
    capture?: boolean;
    noFees?: boolean;
    cardOverrides?: Partial<CardInput>;
    idempotencyKey?: string;
    reference?: string;
  } = {},
) {
  return gateway.chargeCard(
    {
      reference: options.reference ?? uuidv7(),
      amount: options.amount ?? 10_000,
      currency: 'BRL',
      installments: options.installments ?? 1,
      noFeesInstallments: options.noFees ?? false,
      card: card(number, options.cardOverrides),
      capture: options.capture ?? true,
    },
    options.idempotencyKey ?? key('charge'),
  );
}

async function sql<T = Record<string, unknown>>(q: string, params: unknown[] = []): Promise<T[]> {
  return orm.em.getConnection().execute<T[]>(q, params);
}

async function ledger(transactionId: string) {
  const rows = await sql<{ kind: string; amount: string }>(
    'select kind, amount from gateway_sim.ledger where transaction_id = ? order by id',
    [transactionId],
  );
  return rows.map((r) => [r.kind, Number(r.amount)]);
}

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

describe('test cards', () => {
  it.each([
    ['4111111111111111', 'visa'],
    ['5555555555554444', 'mastercard'],
  ])('approves %s (%s) and captures it once', async (number, brand) => {
    const t = await charge(number, { amount: 12_990 });
    expect(t).toMatchObject({
      status: 'succeeded',
      paymentType: 'credit',
      amount: 12_990,
      baseAmount: 12_990,
      currency: 'BRL',
      installments: 1,
      installmentAmounts: [12_990],
      declineReason: null,
      capturedAmount: 12_990,
      refundedAmount: 0,
      card: { brand, first4: number.slice(0, 4), last4: number.slice(-4), holderName: 'MARIA SILVA' },
    });
    expect(t.authorizationCode).toMatch(/^[0-9A-F]{6}$/);
    expect(t.transactionNumber).toMatch(/^\d+$/);
    expect(t.confirmedAt).not.toBeNull();
    expect(await ledger(t.id)).toEqual([['capture', 12_990]]);
    expect(await gateway.getTransaction(t.id)).toEqual(t);
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000259', 'fraud_suspected'],
  ])('declines %s with %s: a failed transaction, nothing captured', async (number, reason) => {
    const t = await charge(number);
    expect(t).toMatchObject({ status: 'failed', declineReason: reason, authorizationCode: null, capturedAmount: 0 });
    expect(await ledger(t.id)).toEqual([]);
  });

  it('declines a number that fails the Luhn check as invalid_card', async () => {
    const t = await charge('4111111111111112');
    expect(t).toMatchObject({ status: 'failed', declineReason: 'invalid_card' });
  });

  it('declines an approving card whose expiry has passed as expired_card, and a malformed CVV as incorrect_cvc', async () => {
    const lastYear = String(new Date().getUTCFullYear() - 1);
    expect(await charge('4111111111111111', { cardOverrides: { expirationYear: lastYear } })).toMatchObject({
      status: 'failed',
      declineReason: 'expired_card',
    });
    expect(await charge('4111111111111111', { cardOverrides: { cvv: '12' } })).toMatchObject({
      status: 'failed',
      declineReason: 'incorrect_cvc',
    });
  });

  it('keeps only brand, first and last four, holder and expiry of a card: never the number or the CVV', async () => {
    const token = await gateway.tokenizeCard(card('5555555555554444', { cvv: '987' }), key('tok'));
    expect(token).toEqual({
      id: expect.stringMatching(/^card_/),
      brand: 'mastercard',
      first4: '5555',
      last4: '4444',
      holderName: 'MARIA SILVA',
      expirationMonth: '12',
      expirationYear: String(new Date().getUTCFullYear() + 3),
    });
    const [row] = await sql<{ j: string }>('select row_to_json(c)::text as j from gateway_sim.cards c where id = ?', [
      token.id,
    ]);
    expect(row!.j).not.toContain('5555555555554444');
    expect(row!.j).not.toContain('987');
    // The token charges like the card it stands for.
    const t = await gateway.chargeCard(
      {
        reference: 'r',
        amount: 500,
        currency: 'BRL',
        installments: 1,
        noFeesInstallments: false,
        card: { token: token.id },
        capture: true,
      },
      key('charge-token'),
    );
    expect(t).toMatchObject({ status: 'succeeded', card: token });
    const declining = await gateway.tokenizeCard(card('4000000000009995'), key('tok'));
    const declined = await gateway.chargeCard(
      {
        reference: 'r',
        amount: 500,
        currency: 'BRL',
        installments: 1,
        noFeesInstallments: false,
        card: { token: declining.id },
        capture: true,
      },
      key('charge-token'),
    );
    expect(declined).toMatchObject({ status: 'failed', declineReason: 'insufficient_funds' });
  });

  it('refuses an unknown card token as a definite error', async () => {
    const err = await rejection(
      gateway.chargeCard(
        {
          reference: 'r',
          amount: 500,
          currency: 'BRL',
          installments: 1,
          noFeesInstallments: false,
          card: { token: 'card_nope' },
          capture: true,
        },
        key(),
      ),
    );
    expect(err.retryable).toBe(false);
  });

  it('tells the brand from the number', () => {
    expect(cardBrand('4111111111111111')).toBe('visa');
    expect(cardBrand('5105105105105100')).toBe('mastercard');
    expect(cardBrand('2223000048400011')).toBe('mastercard');
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(cardBrand('341111111111111')).toBe('amex');
    expect(cardBrand('6362970000457013')).toBe('elo');
    expect(cardBrand('5067000000000000')).toBe('elo');
    expect(cardBrand('6062825624254001')).toBe('hipercard');
    expect(cardBrand('9999999999999999')).toBe('unknown');
  });

  it('lists test cards that are all Luhn-valid', () => {
    expect(TEST_CARDS.every((c) => isLuhnValid(c.number))).toBe(true);
    expect(isLuhnValid('4111 1111 1111 1111')).toBe(true);
    expect(isLuhnValid('4111111111111112')).toBe(false);
  });
});

describe('installments', () => {
  it('charges R$ 1.000,00 in 12x at 2.99% a month: the buyer pays 12 × R$ 100,40, R$ 1.000,00 captured', async () => {
    const t = await charge('4111111111111111', { amount: 100_000, installments: 12 });
    expect(t).toMatchObject({
      status: 'succeeded',
      amount: 120_480,
      baseAmount: 100_000,
      installments: 12,
      installmentAmounts: Array(12).fill(10_040),
      // Measured as Mercado Pago measures it: the transaction amount; the interest is the gateway's.
      capturedAmount: 100_000,
    });
    expect(await ledger(t.id)).toEqual([['capture', 100_000]]);
  });

  it('charges the base amount, split to the cent, when the seller absorbs the fees', async () => {
    const t = await charge('4111111111111111', { amount: 100_001, installments: 3, noFees: true });
    expect(t).toMatchObject({ amount: 100_001, baseAmount: 100_001, installmentAmounts: [33_334, 33_334, 33_333] });
  });

  it.each([0, 13, 2.5])('refuses %p installments as a definite error', async (n) => {
    const err = await rejection(charge('4111111111111111', { installments: n }));
    expect(err.retryable).toBe(false);
  });
});

describe('idempotency', () => {
  it('returns the first result for a repeated key and captures once', async () => {
    const k = key('same');
    const reference = uuidv7();
    const first = await charge('4111111111111111', { idempotencyKey: k, reference });
    const second = await charge('4111111111111111', { idempotencyKey: k, reference });
    expect(second).toEqual(first);
    expect(await ledger(first.id)).toEqual([['capture', 10_000]]);
  });

  it('charges once when the same key arrives concurrently', async () => {
    const k = key('concurrent');
    const reference = uuidv7();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => charge('4111111111111111', { idempotencyKey: k, reference })),
    );
    expect(new Set(results.map((t) => t.id)).size).toBe(1);
    const rows = await sql('select id from gateway_sim.transactions where reference = ?', [reference]);
    expect(rows).toHaveLength(1);
    expect(await ledger(results[0]!.id)).toEqual([['capture', 10_000]]);
  });

  it('replays a decline as the same declined transaction', async () => {
    const k = key('decline');
    const first = await charge('4000000000000002', { idempotencyKey: k });
    expect(await charge('4000000000000002', { idempotencyKey: k })).toEqual(first);
  });

  it('refuses a key reused for another operation', async () => {
    const k = key('reuse');
    await charge('4111111111111111', { idempotencyKey: k });
    const err = await rejection(gateway.tokenizeCard(card('4111111111111111'), k));
    expect(err.retryable).toBe(false);
  });

  it('fails with a retryable processing error on the first attempt of 4000000000000119, approves the retry', async () => {
    const k = key('processing');
    const reference = uuidv7();
    const err = await rejection(charge('4000000000000119', { idempotencyKey: k, reference }));
    expect(err.retryable).toBe(true);
    expect(await sql('select 1 from gateway_sim.transactions where reference = ?', [reference])).toHaveLength(0);
    expect(await sql('select 1 from gateway_sim.idempotency where key = ?', [k])).toHaveLength(0);
    const retried = await charge('4000000000000119', { idempotencyKey: k, reference });
    expect(retried).toMatchObject({ status: 'succeeded', capturedAmount: 10_000 });
    expect(await charge('4000000000000119', { idempotencyKey: k, reference })).toEqual(retried);
    const attempts = await sql<{ outcome: string }>(
      'select outcome from gateway_sim.attempts where key = ? order by id',
      [k],
    );
    expect(attempts.map((a) => a.outcome)).toEqual([
      expect.stringMatching(/^error: Processing error/),
      'ran',
      'replayed',
    ]);
    expect(await ledger(retried.id)).toEqual([['capture', 10_000]]);
  });

  it('still fails the next calls on demand through faults.failNext', async () => {
    gateway.faults.failNext = 1;
    const err = await rejection(charge('4111111111111111'));
    expect(err).toMatchObject({ retryable: true, message: 'Simulated gateway unavailable' });
    expect(gateway.faults.failNext).toBe(0);
    expect((await charge('4111111111111111')).status).toBe('succeeded');
  });
});

describe('findTransactionByIdempotencyKey', () => {
  it('finds a captured card charge as it was answered', async () => {
    const k = key('find');
    const t = await charge('4111111111111111', { idempotencyKey: k, installments: 3 });
    expect(await gateway.findTransactionByIdempotencyKey(k)).toEqual(t);
  });

  it('shows a pre-authorization as it stands now: succeeded once captured, canceled once voided', async () => {
    const k = key('authorize');
    const held = await charge('4111111111111111', { idempotencyKey: k, capture: false, amount: 7_000 });
    expect(await gateway.findTransactionByIdempotencyKey(k)).toEqual(held);
    const captured = await gateway.capture(held.id, null, key('capture'));
    const found = await gateway.findTransactionByIdempotencyKey(k);
    expect(found).toEqual(captured);
    expect(found).toMatchObject({ id: held.id, status: 'succeeded', capturedAmount: 7_000 });

    const k2 = key('authorize');
    const voided = await charge('4111111111111111', { idempotencyKey: k2, capture: false });
    await gateway.cancel(voided.id, key('void'));
    expect(await gateway.findTransactionByIdempotencyKey(k2)).toMatchObject({ id: voided.id, status: 'canceled' });
  });

  it('finds a declined card as its failed transaction', async () => {
    const k = key('declined');
    const declined = await charge('4000000000009995', { idempotencyKey: k });
    expect(await gateway.findTransactionByIdempotencyKey(k)).toEqual(declined);
    expect(declined).toMatchObject({ status: 'failed', declineReason: 'insufficient_funds' });
  });

  it('finds pix and boleto charges, paid or lapsed since', async () => {
    const pixKey = key('pix');
    const pix = await gateway.createPixCharge(
      {
        reference: uuidv7(),
        amount: 2_500,
        currency: 'BRL',
        buyer: { email: 'b@example.com' },
        expiresInSeconds: 1800,
      },
      pixKey,
    );
    expect(await gateway.findTransactionByIdempotencyKey(pixKey)).toEqual(pix);
    gateway.now = () => new Date(Date.now() + 1_801_000);
    expect(await gateway.findTransactionByIdempotencyKey(pixKey)).toMatchObject({
      id: pix.id,
      status: 'failed',
      declineReason: 'expired',
    });
    gateway.now = () => new Date();

    const boletoKey = key('boleto');
    const boleto = await gateway.createBoleto(
      { reference: uuidv7(), amount: 3_000, currency: 'BRL', buyer: { email: 'b@example.com' }, dueDate: '2031-05-05' },
      boletoKey,
    );
    expect(await gateway.findTransactionByIdempotencyKey(boletoKey)).toEqual(boleto);
    await gateway.pay(boleto.id);
    expect(await gateway.findTransactionByIdempotencyKey(boletoKey)).toMatchObject({
      id: boleto.id,
      status: 'succeeded',
      capturedAmount: 3_000,
    });
  });

  it('answers null for a key never used, a refused or failed call, and a key of another operation', async () => {
    const never = key('never');
    expect(await gateway.findTransactionByIdempotencyKey(never)).toBeNull();
    // The lookup leaves no trace: the key is still free for a real call.
    expect(await sql('select 1 from gateway_sim.idempotency where key = ?', [never])).toEqual([]);

    const refused = key('refused');
    await rejection(
      gateway.chargeCard(
        {
          reference: uuidv7(),
          amount: 1_000,
          currency: 'BRL',
          installments: 1,
          noFeesInstallments: false,
          card: { token: 'card_unknown' },
          capture: true,
        },
        refused,
      ),
    );
    expect(await gateway.findTransactionByIdempotencyKey(refused)).toBeNull();

    const unavailable = key('unavailable');
    gateway.faults.failNext = 1;
    await rejection(charge('4111111111111111', { idempotencyKey: unavailable }));
    expect(await gateway.findTransactionByIdempotencyKey(unavailable)).toBeNull();

    // A retryable processing error leaves nothing behind; the retry's transaction is found.
    const processing = key('processing');
    await rejection(charge('4000000000000119', { idempotencyKey: processing }));
    expect(await gateway.findTransactionByIdempotencyKey(processing)).toBeNull();
    const retried = await charge('4000000000000119', { idempotencyKey: processing });
    expect(await gateway.findTransactionByIdempotencyKey(processing)).toEqual(retried);

    const tokenKey = key('token');
    await gateway.tokenizeCard(card('4111111111111111'), tokenKey);
    expect(await gateway.findTransactionByIdempotencyKey(tokenKey)).toBeNull();
    const held = await charge('4111111111111111', { capture: false });
    const captureKey = key('capture');
    await gateway.capture(held.id, null, captureKey);
    expect(await gateway.findTransactionByIdempotencyKey(captureKey)).toBeNull();
  });

  it('waits for a call under the same key that is still running, and sees what it did', async () => {
    const existing = await charge('4111111111111111');
    for (const outcome of ['commit', 'rollback'] as const) {
      const k = key(`inflight-${outcome}`);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let claimed!: () => void;
      const isClaimed = new Promise<void>((resolve) => (claimed = resolve));
      // Plays a chargeCard call in the middle of its transaction: the key claimed, not yet committed.
      const inflight = orm.em
        .fork()
        .transactional(async (tx) => {
          await tx
            .getConnection()
            .execute(
              `insert into gateway_sim.idempotency (key, operation, result) values (?, 'charge_card', ?::jsonb)`,
              [k, JSON.stringify(existing)],
              'all',
              tx.getTransactionContext(),
            );
          claimed();
          await released;
          if (outcome === 'rollback') throw new Error('the call failed');
        })
        .catch(() => undefined);
      await isClaimed;
      let settled = false;
      const lookup = gateway.findTransactionByIdempotencyKey(k).finally(() => (settled = true));
      // The lookup waits on the running call's claim of the key (a lock), not answering meanwhile.
      await until(
        async () =>
          (
            await orm.em.getConnection().execute(
              `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
               and query like '%into gateway_sim.idempotency%''lookup''%'`,
            )
          ).length > 0,
        10_000,
        'the lookup to wait for the running call',
      );
      expect(settled).toBe(false);
      release();
      await inflight;
      if (outcome === 'commit') expect(await lookup).toEqual(existing);
      else expect(await lookup).toBeNull();
    }
  });

  it('finds the charge whose answer was lost (faults.loseAnswerNext); the retry returns it and captures once', async () => {
    const k = key('lost');
    const reference = uuidv7();
    gateway.faults.loseAnswerNext = 1;
    const err = await rejection(charge('4111111111111111', { idempotencyKey: k, reference }));
    expect(err).toMatchObject({ retryable: true, message: expect.stringContaining('lost answer') });
    expect(gateway.faults.loseAnswerNext).toBe(0);

    const found = await gateway.findTransactionByIdempotencyKey(k);
    expect(found).toMatchObject({ reference, status: 'succeeded', capturedAmount: 10_000 });
    const retried = await charge('4111111111111111', { idempotencyKey: k, reference });
    expect(retried).toEqual(found);
    expect(await sql('select id from gateway_sim.transactions where reference = ?', [reference])).toEqual([
      { id: found!.id },
    ]);
    expect(await ledger(found!.id)).toEqual([['capture', 10_000]]);
  });
});

describe('pre-authorization and capture', () => {
  it('authorizes only when capture is false, then captures the whole amount once', async () => {
    const t = await charge('4111111111111111', { capture: false, amount: 25_000 });
    expect(t).toMatchObject({ status: 'pre_authorized', capturedAmount: 0, confirmedAt: null });
    expect(t.authorizationCode).toMatch(/^[0-9A-F]{6}$/);
    expect(await ledger(t.id)).toEqual([]);
    const k = key('capture');
    const captured = await gateway.capture(t.id, null, k);
    expect(captured).toMatchObject({ status: 'succeeded', capturedAmount: 25_000 });
    expect(await gateway.capture(t.id, null, k)).toEqual(captured);
    expect(await ledger(t.id)).toEqual([['capture', 25_000]]);
    const again = await rejection(gateway.capture(t.id, null, key('capture')));
    expect(again).toMatchObject({ retryable: false, message: 'Cannot capture a transaction that is succeeded' });
  });

  it('always pre-authorizes 4000000000003220, which then captures a part of the amount', async () => {
    const t = await charge('4000000000003220', { capture: true, amount: 30_000 });
    expect(t.status).toBe('pre_authorized');
    const over = await rejection(gateway.capture(t.id, 30_001, key()));
    expect(over.retryable).toBe(false);
    const captured = await gateway.capture(t.id, 20_000, key());
    expect(captured).toMatchObject({ status: 'succeeded', capturedAmount: 20_000, amount: 30_000 });
    expect(await ledger(t.id)).toEqual([['capture', 20_000]]);
  });

  it('cannot capture a failed transaction; cancels a pre-authorization but not a captured charge', async () => {
    const failed = await charge('4000000000000002');
    expect((await rejection(gateway.capture(failed.id, null, key()))).retryable).toBe(false);
    const held = await charge('4111111111111111', { capture: false });
    expect(await gateway.cancel(held.id, key())).toMatchObject({ status: 'canceled', capturedAmount: 0 });
    expect((await rejection(gateway.capture(held.id, null, key()))).retryable).toBe(false);
    const paid = await charge('4111111111111111');
    expect((await rejection(gateway.cancel(paid.id, key()))).message).toBe(
      'Cannot cancel a transaction that is succeeded',
    );
    expect((await rejection(gateway.capture('tr_unknown', null, key()))).message).toBe(
      'Unknown transaction tr_unknown',
    );
  });
});

describe('refunds', () => {
  it('refunds in parts down to zero and never more than was captured', async () => {
    const t = await charge('4111111111111111', { amount: 10_000 });
    const k = key('refund');
    const partial = await gateway.refund(t.id, 3_000, k);
    expect(partial).toMatchObject({ status: 'partial_refunded', capturedAmount: 10_000, refundedAmount: 3_000 });
    expect(await gateway.refund(t.id, 3_000, k)).toEqual(partial);
    const over = await rejection(gateway.refund(t.id, 7_001, key()));
    expect(over).toMatchObject({ retryable: false, message: 'refund exceeds captured amount' });
    const rest = await gateway.refund(t.id, 7_000, key());
    expect(rest).toMatchObject({ status: 'refunded', refundedAmount: 10_000 });
    expect((await rejection(gateway.refund(t.id, 1, key()))).retryable).toBe(false);
    expect(await ledger(t.id)).toEqual([
      ['capture', 10_000],
      ['refund', 3_000],
      ['refund', 7_000],
    ]);
  });

  it('measures a refund of an instalment charge with interest against its transaction amount, as Mercado Pago', async () => {
    // 3 instalments with the simulator's interest for a price of R$ 100,00: the buyer pays R$ 106,05.
    const t = await charge('4111111111111111', { amount: 10_000, installments: 3 });
    expect(t).toMatchObject({ amount: 10_605, baseAmount: 10_000, capturedAmount: 10_000 });
    const overPrice = await rejection(gateway.refund(t.id, 10_605, key()));
    expect(overPrice).toMatchObject({ retryable: false, message: 'refund exceeds captured amount' });
    expect(await gateway.refund(t.id, 10_000, key())).toMatchObject({ status: 'refunded', refundedAmount: 10_000 });
    expect(await ledger(t.id)).toEqual([
      ['capture', 10_000],
      ['refund', 10_000],
    ]);
  });

  it('refuses to refund what was never captured', async () => {
    const held = await charge('4111111111111111', { capture: false });
    expect((await rejection(gateway.refund(held.id, 100, key()))).retryable).toBe(false);
    const declined = await charge('4000000000000002');
    expect((await rejection(gateway.refund(declined.id, 100, key()))).retryable).toBe(false);
  });
});

describe('pix', () => {
  const pix = (amount = 4_990, expiresInSeconds = 1800, reference = uuidv7()) =>
    gateway.createPixCharge(
      { reference, amount, currency: 'BRL', buyer: { email: 'buyer@example.com' }, expiresInSeconds },
      key('pix'),
    );

  it('stays pending with a BR Code carrying the amount and the reference, and a PNG', async () => {
    const reference = uuidv7();
    const before = Date.now();
    const t = await pix(4_990, 1800, reference);
    expect(t).toMatchObject({
      status: 'pending',
      paymentType: 'pix',
      amount: 4_990,
      capturedAmount: 0,
      boleto: null,
      card: null,
    });
    expect(t.buyerId).toMatch(/^buyer_/);
    expect(t.pix!.qrCode).toMatch(/^000201/);
    expect(t.pix!.qrCode).toContain('540549.90');
    expect(t.pix!.qrCode).toContain(reference);
    expect(t.pix!.qrCode).toContain('5303986');
    expect(t.pix!.qrCode).toMatch(/6304[0-9A-F]{4}$/);
    const png = Buffer.from(t.pix!.qrCodeImage.replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // A bank app scans the picture into the same code the buyer may copy and paste.
    expect(scanQrPng(png)).toBe(t.pix!.qrCode);
    const expiresAt = Date.parse(t.pix!.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 1_800_000);
    expect(expiresAt).toBeLessThan(Date.now() + 1_801_000);
    expect(await gateway.getTransaction(t.id)).toEqual(t);
  });

  it('is paid through the sandbox control: succeeded, captured once, callback sent and signed', async () => {
    const t = await pix();
    const paid = await gateway.pay(t.id);
    expect(paid).toMatchObject({ status: 'succeeded', capturedAmount: 4_990 });
    expect(paid.confirmedAt).not.toBeNull();
    expect(await gateway.pay(t.id)).toEqual(paid);
    expect(await ledger(t.id)).toEqual([['capture', 4_990]]);
    await gateway.settleCallbacks();
    expect(received.map((r) => r.body)).toEqual([
      {
        id: expect.stringMatching(/^cb_/),
        type: 'transaction.updated',
        transactionId: t.id,
        status: 'succeeded',
        occurredAt: expect.any(String),
      },
    ]);
    const [delivery] = received;
    expect(verifyCallbackSignature(SECRET, delivery!.signature, delivery!.raw, new Date())).toBe(true);
    expect(
      verifyCallbackSignature(SECRET, delivery!.signature, delivery!.raw.replace('succeeded', 'failed'), new Date()),
    ).toBe(false);
    expect(verifyCallbackSignature('another-secret-0123456789', delivery!.signature, delivery!.raw, new Date())).toBe(
      false,
    );
  });

  it('fails as expired once read after its expiry, and persists that; it cannot be paid then', async () => {
    const t = await pix(1_000, 1800);
    gateway.now = () => new Date(Date.now() + 1_801_000);
    const read = await gateway.getTransaction(t.id);
    expect(read).toMatchObject({ status: 'failed', declineReason: 'expired' });
    const [row] = await sql<{ status: string; decline_reason: string }>(
      'select status, decline_reason from gateway_sim.transactions where id = ?',
      [t.id],
    );
    expect(row).toEqual({ status: 'failed', decline_reason: 'expired' });
    const err = await rejection(gateway.pay(t.id));
    expect(err).toMatchObject({ retryable: false, message: 'Cannot pay a transaction that is failed (expired)' });
    await gateway.settleCallbacks();
    expect(received.map((r) => [r.body.transactionId, r.body.status])).toEqual([[t.id, 'failed']]);
  });

  it('expires at once through the sandbox control, and is still pending a second before its expiry', async () => {
    const t = await pix(1_000, 1800);
    gateway.now = () => new Date(Date.now() + 1_799_000);
    expect((await gateway.getTransaction(t.id))!.status).toBe('pending');
    expect(await gateway.expire(t.id)).toMatchObject({ status: 'failed', declineReason: 'expired' });
    expect(await ledger(t.id)).toEqual([]);
  });

  it('can be canceled while pending; a bank may still pay it until it would have lapsed, never after', async () => {
    const t = await pix(1_000, 1800);
    expect(await gateway.cancel(t.id, key())).toMatchObject({ status: 'canceled' });
    expect(await gateway.pay(t.id)).toMatchObject({ status: 'succeeded', capturedAmount: 1_000 });

    const lapsed = await pix(1_000, 1800);
    expect(await gateway.cancel(lapsed.id, key())).toMatchObject({ status: 'canceled' });
    gateway.now = () => new Date(Date.now() + 1_801_000);
    expect((await rejection(gateway.pay(lapsed.id))).message).toBe('Cannot pay a transaction that is canceled');
  });
});

describe('boleto', () => {
  const boleto = (dueDate: string, amount = 15_075) =>
    gateway.createBoleto(
      {
        reference: uuidv7(),
        amount,
        currency: 'BRL',
        buyer: { email: 'b@example.com', name: 'Maria', taxId: '52998224725' },
        dueDate,
      },
      key('boleto'),
    );

  it('stays pending with a 44-digit barcode and a 47-digit digitable line carrying the due date and amount', async () => {
    const t = await boleto('2030-01-15');
    expect(t).toMatchObject({ status: 'pending', paymentType: 'boleto', amount: 15_075, pix: null });
    const { barcode, digitableLine, dueDate, url } = t.boleto!;
    expect(barcode).toMatch(/^\d{44}$/);
    expect(barcode.slice(5, 9)).toBe(dueDateFactor('2030-01-15'));
    expect(barcode.slice(9, 19)).toBe('0000015075');
    expect(digitableLine).toMatch(/^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
    expect(digitableLine.replace(/\D/g, '')).toHaveLength(47);
    expect(digitableLine.endsWith(barcode.slice(5, 19))).toBe(true);
    expect(dueDate).toBe('2030-01-15');
    expect(url).toContain(t.id);
  });

  it('computes the due-date factor across the 2025 rollover', () => {
    expect(dueDateFactor('2000-07-03')).toBe('1000');
    expect(dueDateFactor('2025-02-21')).toBe('9999');
    expect(dueDateFactor('2025-02-22')).toBe('1000');
  });

  it('is paid through the sandbox control', async () => {
    const t = await boleto('2030-01-15');
    expect(await gateway.pay(t.id)).toMatchObject({ status: 'succeeded', capturedAmount: 15_075 });
    expect(await ledger(t.id)).toEqual([['capture', 15_075]]);
  });

  it('goes overdue after three grace days past its due date', async () => {
    const t = await boleto('2030-01-15');
    gateway.now = () => new Date('2030-01-18T23:59:59Z');
    expect((await gateway.getTransaction(t.id))!.status).toBe('pending');
    gateway.now = () => new Date('2030-01-19T00:00:00Z');
    expect(await gateway.getTransaction(t.id)).toMatchObject({ status: 'failed', declineReason: 'overdue' });
    expect((await rejection(gateway.pay(t.id))).message).toBe('Cannot pay a transaction that is failed (overdue)');
  });

  it('refuses a malformed due date', async () => {
    expect((await rejection(boleto('15/01/2030'))).retryable).toBe(false);
  });
});

describe('subscriptions and invoices', () => {
  it('bills a subscription: plan, buyer, card, subscription, invoice paid through the sandbox, then canceled', async () => {
    const plan = await gateway.createRecurrencePlan(
      { reference: uuidv7(), name: 'Pro', amount: 4_990, currency: 'BRL', interval: 'month', intervalCount: 1 },
      key('plan'),
    );
    const buyer = await gateway.createBuyer({ email: 'sub@example.com', name: 'Ana', taxId: null }, key('buyer'));
    expect(buyer).toEqual({ id: expect.stringMatching(/^buyer_/), email: 'sub@example.com', name: 'Ana', taxId: null });
    const token = await gateway.tokenizeCard(card('4111111111111111'), key('tok'));
    const sk = key('sub');
    const sub = await gateway.createSubscription(
      { reference: 'our-sub', planId: plan.id, buyerId: buyer.id, cardToken: token.id, startDate: '2030-02-01' },
      sk,
    );
    expect(sub).toMatchObject({ reference: 'our-sub', planId: plan.id, buyerId: buyer.id, status: 'active' });
    const invoice = await gateway.createInvoice(
      { subscriptionId: sub.id, amount: 4_990, currency: 'BRL', dueDate: '2030-02-01', noFeesInstallments: false },
      key('inv'),
    );
    expect(invoice).toMatchObject({
      status: 'pending',
      amount: 4_990,
      dueDate: '2030-02-01',
      expirationDate: null,
      paidAt: null,
    });
    expect(await gateway.getInvoice(invoice.id)).toEqual(invoice);
    const paid = await gateway.payInvoice(invoice.id);
    expect(paid.status).toBe('paid');
    expect(paid.paidAt).not.toBeNull();
    expect(await gateway.payInvoice(invoice.id)).toEqual(paid);
    const [row] = await sql<{ transaction_id: string }>(
      'select transaction_id from gateway_sim.invoices where id = ?',
      [invoice.id],
    );
    expect(await ledger(row!.transaction_id)).toEqual([['capture', 4_990]]);
    await gateway.settleCallbacks();
    expect(received.map((r) => [r.body.type, r.body.status])).toEqual([
      ['invoice.updated', 'paid'],
      ['transaction.updated', 'succeeded'],
    ]);
    expect(received[0]!.body.invoiceId).toBe(invoice.id);

    const canceled = await gateway.cancelSubscription(sub.id, key('cancel'));
    expect(canceled.status).toBe('canceled');
    const err = await rejection(
      gateway.createInvoice(
        { subscriptionId: sub.id, amount: 4_990, currency: 'BRL', dueDate: '2030-03-01', noFeesInstallments: false },
        key(),
      ),
    );
    expect(err.retryable).toBe(false);
    expect(await gateway.getInvoice('inv_missing')).toBeNull();
    expect(await gateway.getTransaction('tr_missing')).toBeNull();
  });

  it('fails an unpaid invoice after its expiration date', async () => {
    const plan = await gateway.createRecurrencePlan(
      { reference: uuidv7(), name: 'Basic', amount: 990, currency: 'BRL', interval: 'month', intervalCount: 1 },
      key('plan'),
    );
    const buyer = await gateway.createBuyer({ email: 'exp@example.com' }, key('buyer'));
    const token = await gateway.tokenizeCard(card('4111111111111111'), key('tok'));
    const sub = await gateway.createSubscription(
      { reference: 'x', planId: plan.id, buyerId: buyer.id, cardToken: token.id, startDate: '2030-02-01' },
      key('sub'),
    );
    const invoice = await gateway.createInvoice(
      {
        subscriptionId: sub.id,
        amount: 990,
        currency: 'BRL',
        dueDate: '2030-02-01',
        expirationDate: '2030-02-05',
        noFeesInstallments: false,
      },
      key('inv'),
    );
    gateway.now = () => new Date('2030-02-05T12:00:00Z');
    expect((await gateway.getInvoice(invoice.id))!.status).toBe('pending');
    gateway.now = () => new Date('2030-02-06T00:00:00Z');
    expect((await gateway.getInvoice(invoice.id))!.status).toBe('failed');
  });
});

describe('plan changes', () => {
  type Period = { interval: 'day' | 'week' | 'month' | 'year'; intervalCount: number };
  const plan = (amount: number, currency = 'BRL', period: Period = { interval: 'month', intervalCount: 1 }) =>
    gateway.createRecurrencePlan(
      { reference: uuidv7(), name: `Plan ${amount}`, amount, currency, ...period },
      key('plan'),
    );

  /** A monthly subscription from 1 February 2030 on `planId`, with a card that expires at the end of next year. */
  async function subscribed(planId: string) {
    const buyer = await gateway.createBuyer({ email: 'plans@example.com' }, key('buyer'));
    const expirationYear = String(new Date().getUTCFullYear() + 1);
    const token = await gateway.tokenizeCard(card('4111111111111111', { expirationYear }), key('tok'));
    return gateway.createSubscription(
      { reference: uuidv7(), planId, buyerId: buyer.id, cardToken: token.id, startDate: '2030-02-01' },
      key('sub'),
    );
  }

  const planOf = async (subscriptionId: string) =>
    (await sql<{ plan_id: string }>('select plan_id from gateway_sim.subscriptions where id = ?', [subscriptionId]))[0]!
      .plan_id;

  it('bills the new plan from the next cycle opened on; a cycle opened before keeps its amount', async () => {
    const [basic, pro] = [await plan(4_990), await plan(9_990)];
    const sub = await subscribed(basic.id);
    // Cycle 0 is opened at the old plan's amount and refused: the card has expired by then.
    gateway.now = () => new Date('2040-01-01T00:00:00Z');
    expect(await gateway.billSubscription(sub.id)).toMatchObject({ cycle: 0, status: 'failed', amount: 4_990 });
    gateway.now = () => new Date();

    const moved = await gateway.changeSubscriptionPlan(sub.id, pro.id, key('plan-change'));
    expect(moved).toEqual({ ...sub, planId: pro.id });

    const retried = await gateway.billSubscription(sub.id);
    expect(retried).toMatchObject({ cycle: 0, status: 'paid', amount: 4_990 });
    expect(await ledger(retried.transactionId!)).toEqual([['capture', 4_990]]);
    const next = await gateway.billSubscription(sub.id);
    expect(next).toMatchObject({ cycle: 1, status: 'paid', amount: 9_990, dueDate: '2030-03-01' });
    expect(await ledger(next.transactionId!)).toEqual([['capture', 9_990]]);
  });

  it('changes once per key, answering a repeated key as it first did; the plan it already has changes nothing', async () => {
    const [basic, pro] = [await plan(4_990), await plan(9_990)];
    const sub = await subscribed(basic.id);
    const k = key('plan-change');
    const first = await gateway.changeSubscriptionPlan(sub.id, pro.id, k);
    expect(await gateway.changeSubscriptionPlan(sub.id, pro.id, k)).toEqual(first);
    expect(await planOf(sub.id)).toBe(pro.id);
    // Moved back under another key: the first key, repeated, answers its result and does not move it again.
    await gateway.changeSubscriptionPlan(sub.id, basic.id, key('plan-change'));
    expect(await gateway.changeSubscriptionPlan(sub.id, pro.id, k)).toEqual(first);
    expect(await planOf(sub.id)).toBe(basic.id);
    const attempts = await sql<{ outcome: string }>(
      'select outcome from gateway_sim.attempts where key = ? order by id',
      [k],
    );
    expect(attempts.map((a) => a.outcome)).toEqual(['ran', 'replayed', 'replayed']);

    expect(await gateway.changeSubscriptionPlan(sub.id, basic.id, key('plan-change'))).toEqual(sub);
  });

  it('refuses another currency or period, an unknown plan or subscription, and a canceled subscription (not retryable)', async () => {
    const [basic, pro] = [await plan(4_990), await plan(9_990)];
    const sub = await subscribed(basic.id);
    const refusals: [string, string][] = [
      [(await plan(4_990, 'USD')).id, 'is in USD, the subscription in BRL'],
      [(await plan(49_900, 'BRL', { interval: 'year', intervalCount: 1 })).id, 'renews every 1 year'],
      [(await plan(14_000, 'BRL', { interval: 'month', intervalCount: 3 })).id, 'renews every 3 month'],
      ['plan_missing', 'Unknown recurrence plan plan_missing'],
    ];
    for (const [planId, message] of refusals) {
      const err = await rejection(gateway.changeSubscriptionPlan(sub.id, planId, key('plan-change')));
      expect([err.retryable, err.message]).toEqual([false, expect.stringContaining(message)]);
    }
    expect(await planOf(sub.id)).toBe(basic.id);
    // The same currency in another case is the same currency.
    expect((await gateway.changeSubscriptionPlan(sub.id, (await plan(5_990, 'brl')).id, key())).planId).not.toBe(
      basic.id,
    );

    const unknown = await rejection(gateway.changeSubscriptionPlan('sub_missing', pro.id, key('plan-change')));
    expect([unknown.retryable, unknown.message]).toEqual([false, 'Unknown subscription sub_missing']);
    await gateway.cancelSubscription(sub.id, key('cancel'));
    const canceled = await rejection(gateway.changeSubscriptionPlan(sub.id, pro.id, key('plan-change')));
    expect([canceled.retryable, canceled.message]).toEqual([
      false,
      'Cannot change the plan of a canceled subscription',
    ]);
  });
});

describe('callback delivery', () => {
  it('retries a callback the receiver did not take, and never throws into the caller', async () => {
    failDeliveries = 1;
    const t = await gateway.createPixCharge(
      { reference: 'r', amount: 100, currency: 'BRL', buyer: { email: 'b@example.com' }, expiresInSeconds: 1800 },
      key(),
    );
    await gateway.pay(t.id);
    await gateway.settleCallbacks();
    expect(received.map((r) => r.body.transactionId)).toEqual([t.id]);

    const unreachable = new SimulatedGateway(orm, {
      callbackUrl: 'https://127.0.0.1:1/callbacks',
      callbackSecret: SECRET,
    });
    const u = await unreachable.createPixCharge(
      { reference: 'r', amount: 100, currency: 'BRL', buyer: { email: 'b@example.com' }, expiresInSeconds: 1800 },
      key(),
    );
    expect((await unreachable.pay(u.id)).status).toBe('succeeded');
    await unreachable.settleCallbacks();
  }, 15_000);

  it('signs with a timestamp and refuses signatures out of tolerance or malformed', () => {
    const body = '{"id":"cb_1"}';
    const at = new Date('2030-01-01T00:00:00Z');
    const header = signCallback(SECRET, body, at);
    expect(header).toMatch(/^t=1893456000,v1=[0-9a-f]{64}$/);
    expect(verifyCallbackSignature(SECRET, header, body, new Date(at.getTime() + 300_000))).toBe(true);
    expect(verifyCallbackSignature(SECRET, header, body, new Date(at.getTime() + 301_000))).toBe(false);
    expect(verifyCallbackSignature(SECRET, header, body, new Date(at.getTime() - 301_000))).toBe(false);
    expect(verifyCallbackSignature(SECRET, `${header},v1=${'0'.repeat(64)}`, body, at)).toBe(true);
    expect(verifyCallbackSignature(SECRET, undefined, body, at)).toBe(false);
    expect(verifyCallbackSignature(SECRET, 'v1=abc', body, at)).toBe(false);
    expect(verifyCallbackSignature(SECRET, 't=1893456000,v1=zz', body, at)).toBe(false);
  });
});

describe('sandbox routes', () => {
  let api: TestApi;
  let sim: SimulatedGateway;
  beforeAll(async () => {
    api = await startApi({ GATEWAY_CALLBACK_SECRET: SECRET });
    sim = api.gateway as SimulatedGateway;
    sim.callbacks.callbackUrl = receiverUrl;
  });
  afterAll(async () => {
    await sim.settleCallbacks();
    await api.close();
  });

  it('pays a pending pix, answers with the transaction in snake_case and sends the callback', async () => {
    const t: GatewayTransaction = await sim.createPixCharge(
      { reference: 'ref-1', amount: 2_500, currency: 'BRL', buyer: { email: 'b@example.com' }, expiresInSeconds: 600 },
      key(),
    );
    const res = await api.call('POST', `/api/v1/sandbox/transactions/${t.id}/pay`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: t.id,
      reference: 'ref-1',
      status: 'succeeded',
      payment_type: 'pix',
      amount: 2_500,
      base_amount: 2_500,
      currency: 'BRL',
      installments: 1,
      installment_amounts: [2_500],
      authorization_code: expect.any(String),
      decline_reason: null,
      card: null,
      pix: { qr_code: t.pix!.qrCode, qr_code_image: t.pix!.qrCodeImage, expires_at: t.pix!.expiresAt },
      boleto: null,
      buyer_id: t.buyerId,
      transaction_number: t.transactionNumber,
      captured_amount: 2_500,
      refunded_amount: 0,
      created_at: t.createdAt,
      confirmed_at: expect.any(String),
    });
    await sim.settleCallbacks();
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toMatchObject({ transactionId: t.id, status: 'succeeded' });
    expect(verifyCallbackSignature(SECRET, received[0]!.signature, received[0]!.raw, new Date())).toBe(true);
  });

  it('expires a pending boleto as overdue, then refuses to pay it with 409', async () => {
    const t = await sim.createBoleto(
      { reference: 'ref-2', amount: 9_900, currency: 'BRL', buyer: { email: 'x@example.com' }, dueDate: '2030-05-10' },
      key(),
    );
    const res = await api.call('POST', `/api/v1/sandbox/transactions/${t.id}/expire`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'failed',
      decline_reason: 'overdue',
      boleto: { barcode: t.boleto!.barcode },
    });
    const pay = await api.call('POST', `/api/v1/sandbox/transactions/${t.id}/pay`);
    expect(pay.status).toBe(409);
    expect(pay.body).toEqual({ error: 'Cannot pay a transaction that is failed (overdue)', code: 'conflict' });
  });

  it('answers 404 for an unknown transaction or invoice, and 409 for paying a card charge', async () => {
    for (const url of ['/api/v1/sandbox/transactions/tr_nope/pay', '/api/v1/sandbox/transactions/tr_nope/expire']) {
      const res = await api.call('POST', url);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Transaction not found', code: 'not_found' });
    }
    const inv = await api.call('POST', '/api/v1/sandbox/invoices/inv_nope/pay');
    expect(inv.status).toBe(404);
    expect(inv.body).toEqual({ error: 'Invoice not found', code: 'not_found' });
    const cardCharge = await sim.chargeCard(
      {
        reference: 'r',
        amount: 100,
        currency: 'BRL',
        installments: 1,
        noFeesInstallments: false,
        card: card('4111111111111111'),
        capture: true,
      },
      key(),
    );
    expect((await api.call('POST', `/api/v1/sandbox/transactions/${cardCharge.id}/pay`)).status).toBe(409);
  });

  it('pays an invoice', async () => {
    const plan = await sim.createRecurrencePlan(
      { reference: uuidv7(), name: 'P', amount: 1_990, currency: 'BRL', interval: 'month', intervalCount: 1 },
      key(),
    );
    const buyer = await sim.createBuyer({ email: 'inv@example.com' }, key());
    const token = await sim.tokenizeCard(card('4111111111111111'), key());
    const sub = await sim.createSubscription(
      { reference: 's', planId: plan.id, buyerId: buyer.id, cardToken: token.id, startDate: '2030-01-01' },
      key(),
    );
    const invoice = await sim.createInvoice(
      { subscriptionId: sub.id, amount: 1_990, currency: 'BRL', dueDate: '2030-01-01', noFeesInstallments: true },
      key(),
    );
    const res = await api.call('POST', `/api/v1/sandbox/invoices/${invoice.id}/pay`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: invoice.id,
      subscription_id: sub.id,
      amount: 1_990,
      currency: 'BRL',
      status: 'paid',
      due_date: '2030-01-01',
      expiration_date: null,
      paid_at: expect.any(String),
      created_at: invoice.createdAt,
      transaction_id: expect.any(String),
      cycle: null,
    });
  });

  it('lists the test cards', async () => {
    const res = await api.call('GET', '/api/v1/sandbox/test-cards');
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(TEST_CARDS.length);
    expect(res.body.items[0]).toEqual({
      number: '4111111111111111',
      brand: 'visa',
      outcome: 'approve',
      description: 'Approved',
    });
  });

  it('does not exist in a live deployment, even with the simulator', async () => {
    const live = await startApi({ DEPLOYMENT_ENV: 'live', GATEWAY: 'simulator', GATEWAY_CALLBACK_SECRET: SECRET });
    try {
      const t = await sim.createPixCharge(
        { reference: 'r', amount: 100, currency: 'BRL', buyer: { email: 'b@example.com' }, expiresInSeconds: 60 },
        key(),
      );
      for (const [method, url] of [
        ['POST', `/api/v1/sandbox/transactions/${t.id}/pay`],
        ['POST', `/api/v1/sandbox/transactions/${t.id}/expire`],
        ['POST', `/api/v1/sandbox/transactions/${t.id}/end-review`],
        ['POST', '/api/v1/sandbox/invoices/inv_x/pay'],
        ['GET', '/api/v1/sandbox/test-cards'],
      ] as const) {
        const res = await live.call(method, url);
        expect(res.status).toBe(404);
      }
      expect((await sim.getTransaction(t.id))!.status).toBe('pending');
    } finally {
      await live.close();
    }
  });
});
