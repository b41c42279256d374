import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { reconcile, reportStatus } from '../../domain/reconciliation.ts';
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
      // The withdrawal: a payout, not compared; its fee the account's, of no payment.
      ['payout', null, null, -81_336_045],
      ['fee', null, null, -300],
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

  it('says how many instalments a payment row has, not which one it releases', () => {
    const rows = parseReleaseReport(csv).filter((r) => r.gatewayId === '1316589513' && r.kind === 'payment');
    expect(rows).toEqual([expect.objectContaining({ amount: 109_900, installment: { number: null, of: 6 } })]);
    expect(parseReleaseReport(csv).find((r) => r.gatewayId === '1316589511')).not.toHaveProperty('installment');
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
    const sale = await gateway.chargeCard(fake.cardCharge('chk_rr', 10_000), 'chk_rr:charge');
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

  const day = () => new Date(new Date().toISOString().slice(0, 10));
  const windowOf = (from: Date) => ({ from, to: new Date(from.getTime() + 86_400_000) });

  /** The window's rows, asked for and then read (the fake lists a report from the next listing on). */
  async function ledgerOf(gateway: ReturnType<typeof mercadoPagoGateway>, window: { from: Date; to: Date }) {
    await gateway.ledger(window).catch(() => undefined);
    return gateway.ledger(window);
  }

  it('calls a card payment released by instalment, one of three today, instalment timing', async () => {
    const gateway = mercadoPagoGateway();
    const sale = await gateway.chargeCard(fake.cardCharge('chk_parcelado', 30_001, 3), 'chk_parcelado:charge');
    fake.releaseReports.releasedByInstallment.add(sale.id);
    const rows = (await ledgerOf(gateway, windowOf(day()))).filter((r) => r.gatewayId === sale.id);
    // 300,01 in three: 100,01 released today (odd cent first); the fee is 4.99 % of the whole.
    expect(rows.map((r) => [r.kind, r.amount, r.installment ?? null])).toEqual([
      ['payment', 10_001, { number: null, of: 3 }],
      ['fee', -1_497, null],
    ]);
    const ours = [{ kind: 'payment' as const, gatewayId: sale.id, reference: 'chk_parcelado', amount: 30_001 }];
    const result = reconcile(ours, rows);
    expect(result.lines.map((l) => [l.kind, l.difference, l.reason])).toEqual([
      ['payment', 20_000, 'installment_timing'],
      ['fee', 1_497, 'fee'],
    ]);
    expect(reportStatus(result)).toBe('balanced');
    // More released than our books hold is no timing: the amounts disagree.
    const short = [{ ...ours[0]!, amount: 9_000 }];
    expect(reconcile(short, rows).lines[0]).toMatchObject({ reason: 'amount_mismatch', difference: -1_001 });
  });

  it('keeps the account’s own rows (a payout, its fee, a tax of no payment) apart from every payment', async () => {
    const gateway = mercadoPagoGateway();
    const at = new Date(day().getTime() + 3_600_000).toISOString();
    fake.releaseReports.extraLines.push(
      `${at},,,release,payout,0.00,500.00,-500.00,-3.00,0.00,0.00,0.00,0.00,1,`,
      `${at},,,release,tax_withholding,0.00,7.00,0.00,0.00,0.00,0.00,-7.00,0.00,1,`,
    );
    const rows = (await ledgerOf(gateway, windowOf(day()))).filter((r) => r.gatewayId === null);
    expect(rows.map((r) => [r.kind, r.reference, r.amount])).toEqual([
      ['payout', null, -50_000],
      ['fee', null, -300],
      ['withholding', null, -700],
    ]);
    // Compared alone they are their own lines, never joined to a payment: the payout is not compared at all.
    const result = reconcile([{ kind: 'payment', gatewayId: '1', reference: null, amount: 1_000 }], rows);
    expect(result.lines.filter((l) => l.gatewayId === null).map((l) => [l.kind, l.theirs, l.reason])).toEqual([
      ['fee', -300, 'fee'],
      ['withholding', -700, 'withholding'],
    ]);
    fake.releaseReports.extraLines.length = 0;
  });
});
