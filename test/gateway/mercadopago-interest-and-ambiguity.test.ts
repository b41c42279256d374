import { describe, expect, it } from '@jest/globals';
import { MercadoPagoGatewayError } from '../../gateway/mercadopago-adapter.ts';
import { transactionFromPayment, type MpPayment } from '../../gateway/mercadopago-payments.ts';
import type { CardChargeInput } from '../../gateway/port.ts';
import { fixture, mercadoPagoGateway as gateway, mockMercadoPago } from '../helpers/mercadopago-mock.ts';

/**
 * Issue 33 §1: what a Mercado Pago refund is measured against (`transaction_amount`, not the buyer's
 * total with instalment interest), and answers that do not say whether a payment was made.
 */
const { sent, answer } = mockMercadoPago();

/** A 3-instalment payment of R$ 100,00 the buyer pays R$ 105,99 for (the interest is the payer's financing fee). */
const withInterest = (over: Partial<MpPayment> = {}): MpPayment => ({
  ...(fixture('payment-card-approved') as MpPayment),
  installments: 3,
  transaction_amount: 100,
  transaction_amount_refunded: 0,
  transaction_details: { total_paid_amount: 105.99 },
  ...over,
});

const cardCharge: CardChargeInput = {
  reference: 'chk_1',
  amount: 10_000,
  currency: 'BRL',
  installments: 1,
  noFeesInstallments: false,
  card: { token: 'ff8080814c11e237014c1ff593b57b4d' },
  capture: true,
};

describe('Mercado Pago instalment interest', () => {
  it('charged the total with interest; captured (what refunds are measured against) is transaction_amount', () => {
    const t = transactionFromPayment(withInterest());
    expect(t).toMatchObject({ amount: 10_599, baseAmount: 10_000, capturedAmount: 10_000, refundedAmount: 0 });
    expect(t.installmentAmounts.reduce((a, b) => a + b, 0)).toBe(10_599);
  });

  it('every give-back sized as captured − refunded asks for no more than the gateway can refund', () => {
    const part = transactionFromPayment(
      withInterest({ status_detail: 'partially_refunded', transaction_amount_refunded: 40 }),
    );
    expect(part).toMatchObject({ status: 'partial_refunded', capturedAmount: 10_000, refundedAmount: 4_000 });
    expect(part.capturedAmount - part.refundedAmount).toBe(6_000);
    const all = transactionFromPayment(
      withInterest({ status: 'refunded', status_detail: 'refunded', transaction_amount_refunded: 100 }),
    );
    expect(all.capturedAmount - all.refundedAmount).toBe(0);
  });

  it('a pre-authorization captures nothing yet', () => {
    const t = transactionFromPayment(
      withInterest({ status: 'authorized', status_detail: 'pending_capture', captured: false }),
    );
    expect(t.capturedAmount).toBe(0);
  });
});

describe('Mercado Pago answers that do not say whether the payment was made', () => {
  const search = (p: string) => p.startsWith('/v1/payments/search?');

  it('a 409 to a payment is unknown: looked up by its key, and still unknown (retryable) when not found', async () => {
    answer('POST', '/v1/payments', 409, { message: 'Conflict', error: 'conflict', status: 409, cause: [] });
    answer('GET', search, 200, { paging: { total: 0 }, results: [] });
    const failure = await gateway()
      .chargeCard(cardCharge, 'conflict-key')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MercadoPagoGatewayError);
    expect(failure).toMatchObject({ retryable: true, status: 409 });
    expect(sent.map((s) => `${s.method} ${s.path.split('?')[0]}`)).toEqual([
      'POST /v1/payments',
      'GET /v1/payments/search',
    ]);
  });

  it('a 409 to a payment that was made answers the payment its key made', async () => {
    answer('POST', '/v1/payments', 409, { message: 'Conflict', error: 'conflict', status: 409, cause: [] });
    answer('GET', search, 200, { paging: { total: 1 }, results: [fixture('payment-card-approved')] });
    const t = await gateway().chargeCard(cardCharge, 'charge-key-1');
    expect(t).toMatchObject({ id: '20359978', status: 'succeeded' });
    expect(new URL(sent[1]!.path, 'https://x').searchParams.get('external_reference')).toBe('charge-key-1');
  });

  it('a success without the payment (no id or no status) is unknown too, not a transaction', async () => {
    answer('POST', '/v1/payments', 201, {});
    answer('GET', search, 200, { paging: { total: 0 }, results: [] });
    await expect(gateway().chargeCard(cardCharge, 'empty-key')).rejects.toMatchObject({ retryable: true });
    answer('POST', '/v1/payments', 200, { id: 123 });
    answer('GET', search, 200, { paging: { total: 0 }, results: [] });
    await expect(gateway().chargeCard(cardCharge, 'no-status-key')).rejects.toMatchObject({ retryable: true });
  });

  it('a 400 stays a definite refusal', async () => {
    answer('POST', '/v1/payments', 400, fixture('error-card-token-not-found'));
    await expect(gateway().chargeCard(cardCharge, 'bad-key')).rejects.toMatchObject({ retryable: false, status: 400 });
  });
});
