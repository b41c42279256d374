import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseReleaseReport, signedCents } from '../../gateway/mercadopago-release-report.ts';
import { GatewayError } from '../../gateway/port.ts';
import { fakeMercadoPago } from '../helpers/mercadopago-fake.ts';
import { mercadoPagoGateway } from '../helpers/mercadopago-mock.ts';

/**
 * Mercado Pago's ledger is its release report (decision 0073): a CSV shaped as the guide's example
 * (reports/released-money/api: its header and first rows, with payment ids and references filled in,
 * a refund, a dispute block, a tax withholding, a quoted field, subtotal and total lines) parsed to
 * ledger rows; and the adapter asking for, listing and downloading it through the API (the fake).
 */

const csv = readFileSync(new URL('../fixtures/mercadopago/release-report.csv', import.meta.url), 'utf8');

describe('the release report CSV', () => {
  it('reads signed decimals of reais as cents, exactly', () => {
    expect(signedCents('-813360.45')).toBe(-81_336_045);
    expect(signedCents('1099.00')).toBe(109_900);
    expect(signedCents('0.1')).toBe(10);
    expect(signedCents('')).toBe(0);
  });

  it('gives each movement its kind and splits fees and withholdings off the gross', () => {
    const rows = parseReleaseReport(csv).map((r) => [r.kind, r.gatewayId, r.reference, r.amount]);
    expect(rows).toEqual([
      // The withdrawal: a payout, its fee not compared.
      ['payout', null, null, -81_336_045],
      ['payment', '1316589511', 'chk_a:charge', 26_900],
      ['fee', '1316589511', 'chk_a:charge', -4_304],
      ['payment', '1316589512', 'chk_b:charge', 14_800],
      ['fee', '1316589512', 'chk_b:charge', -2_368],
      ['payment', '1316589513', 'chk_c:charge', 109_900],
      ['fee', '1316589513', 'chk_c:charge', -27_886],
      ['payment', '1316589514', null, 85_000],
      ['refund', '1316589512', 'chk_b:charge', -5_000],
      ['dispute', '1316589513', 'chk_c:charge', -109_900],
      ['payment', '1316589511', 'chk_a:charge', 26_900],
      ['fee', '1316589511', 'chk_a:charge', -538],
      ['withholding', '1316589511', 'chk_a:charge', -229],
    ]);
  });

  it('reads a report configured with the ";" separator alike', () => {
    const semicolons =
      'DATE;SOURCE_ID;EXTERNAL_REFERENCE;RECORD_TYPE;DESCRIPTION;GROSS_AMOUNT;MP_FEE_AMOUNT\n' +
      '2018-04-17T15:11:12.000-04:00;77;ref;release;payment;269,00;-43,04\n';
    // A decimal comma is not what the guide shows: refused rather than misread.
    expect(() => parseReleaseReport(semicolons)).toThrow(GatewayError);
    const dotted = semicolons.replace('269,00;-43,04', '269.00;-43.04');
    expect(parseReleaseReport(dotted).map((r) => [r.kind, r.amount])).toEqual([
      ['payment', 26_900],
      ['fee', -4_304],
    ]);
  });
});

describe('the adapter asks for the release report, waits for it and downloads it', () => {
  const fake = fakeMercadoPago();

  it('answers "not ready" (retryable) once, then the day’s rows from the CSV', async () => {
    const gateway = mercadoPagoGateway();
    const sale = await gateway.chargeCard(
      {
        reference: 'chk_rr',
        amount: 10_000,
        currency: 'BRL',
        installments: 1,
        noFeesInstallments: false,
        capture: true,
        card: { token: fake.browserToken() },
        cardMethod: { paymentMethodId: 'master', issuerId: '24' },
        payer: { email: 'ana@example.com', name: 'Ana Souza' },
      },
      'chk_rr:charge',
    );
    await gateway.refund(sale.id, 2_500, 'chk_rr:refund');
    const day = new Date(new Date().toISOString().slice(0, 10));
    const window = { from: day, to: new Date(day.getTime() + 86_400_000) };

    const first = await gateway.ledger(window).catch((err: unknown) => err);
    expect(first).toBeInstanceOf(GatewayError);
    expect((first as GatewayError).retryable).toBe(true);
    const asked = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/account/release_report');
    expect(asked.map((r) => r.body)).toEqual([
      {
        begin_date: window.from.toISOString().replace('.000Z', 'Z'),
        end_date: new Date(window.to.getTime() - 1000).toISOString().replace('.000Z', 'Z'),
      },
    ]);

    const rows = await gateway.ledger(window);
    expect(rows.map((r) => [r.kind, r.gatewayId, r.reference, r.amount])).toEqual([
      ['payment', sale.id, 'chk_rr:charge', 10_000],
      ['fee', sale.id, 'chk_rr:charge', -499],
      ['refund', sale.id, 'chk_rr:charge', -2_500],
    ]);
    // Asked for once: the retry found it listed.
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/account/release_report')).toHaveLength(1);
  });
});
