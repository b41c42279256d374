import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { centsToReais, reaisToCents } from '../../gateway/mercadopago-money.ts';
import { splitInstallments } from '../../gateway/mercadopago-payments.ts';
import { mapPaymentStatus } from '../../gateway/mercadopago-status.ts';
import type { DeclineReason, TransactionStatus } from '../../gateway/port.ts';

/** Money at Mercado Pago's edge and its statuses: pure mappings, no network. */

describe('Mercado Pago money: integer cents ⇄ decimal reais', () => {
  it('converts the edge cases exactly', () => {
    expect(centsToReais(1)).toBe(0.01);
    expect(centsToReais(10)).toBe(0.1);
    expect(centsToReais(1999)).toBe(19.99);
    expect(centsToReais(100)).toBe(1);
    expect(centsToReais(1_000_000_000)).toBe(10_000_000);
    expect(reaisToCents(19.99)).toBe(1999); // 19.99 * 100 is 1998.9999999999998
    expect(reaisToCents(0.29)).toBe(29); // 0.29 * 100 is 28.999999999999996
    expect(reaisToCents(1.005)).toBe(101); // a third decimal rounds half up, on the digits
    expect(reaisToCents(34.054)).toBe(3405);
    expect(() => centsToReais(1.5)).toThrow(/whole cents/);
    expect(() => centsToReais(-1)).toThrow(/whole cents/);
  });

  it('round-trips every amount from 1 cent to R$ 10 000 000,00, and JSON carries the exact decimal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000_000 }), (cents) => {
        const reais = centsToReais(cents);
        expect(reaisToCents(reais)).toBe(cents);
        const decimal = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`.replace(/\.?0+$/, '');
        expect(JSON.stringify({ transaction_amount: reais })).toBe(`{"transaction_amount":${decimal}}`);
        expect(reaisToCents(JSON.parse(JSON.stringify(reais)) as number)).toBe(cents);
      }),
      { numRuns: 20_000 },
    );
  });

  it('splits installments into whole cents that add up to the amount', () => {
    expect(splitInstallments(1000, 3)).toEqual([334, 333, 333]);
    expect(splitInstallments(1000, 1)).toEqual([1000]);
  });
});

/** Each expected value written by hand from the reference's meaning of the status_detail. */
const CASES: [
  status: string,
  detail: string,
  paymentType: 'credit' | 'pix' | 'boleto',
  TransactionStatus,
  DeclineReason | null,
][] = [
  ['approved', 'accredited', 'credit', 'succeeded', null],
  ['authorized', 'pending_capture', 'credit', 'pre_authorized', null],
  ['pending', 'pending_waiting_payment', 'pix', 'pending', null],
  ['pending', 'pending_waiting_transfer', 'pix', 'pending', null],
  ['pending', 'pending_waiting_payment', 'boleto', 'pending', null],
  ['pending', 'pending_contingency', 'credit', 'pending', null],
  ['in_process', 'pending_contingency', 'credit', 'pending', null],
  ['in_process', 'pending_review_manual', 'credit', 'pending', null],
  ['rejected', 'cc_rejected_bad_filled_card_number', 'credit', 'failed', 'invalid_card'],
  ['rejected', 'cc_rejected_bad_filled_date', 'credit', 'failed', 'invalid_card'],
  ['rejected', 'cc_rejected_bad_filled_other', 'credit', 'failed', 'invalid_card'],
  ['rejected', 'cc_rejected_bad_filled_security_code', 'credit', 'failed', 'incorrect_cvc'],
  ['rejected', 'cc_rejected_blacklist', 'credit', 'failed', 'fraud_suspected'],
  ['rejected', 'cc_rejected_call_for_authorize', 'credit', 'failed', 'do_not_honor'],
  ['rejected', 'cc_rejected_card_disabled', 'credit', 'failed', 'card_declined'],
  ['rejected', 'cc_rejected_card_error', 'credit', 'failed', 'card_declined'],
  ['rejected', 'cc_rejected_duplicated_payment', 'credit', 'failed', 'card_declined'],
  ['rejected', 'cc_rejected_high_risk', 'credit', 'failed', 'fraud_suspected'],
  ['rejected', 'rejected_high_risk', 'credit', 'failed', 'fraud_suspected'],
  ['rejected', 'cc_rejected_insufficient_amount', 'credit', 'failed', 'insufficient_funds'],
  ['rejected', 'cc_amount_rate_limit_exceeded', 'credit', 'failed', 'insufficient_funds'],
  ['rejected', 'cc_rejected_invalid_installments', 'credit', 'failed', 'card_declined'],
  ['rejected', 'cc_rejected_max_attempts', 'credit', 'failed', 'card_declined'],
  ['rejected', 'cc_rejected_other_reason', 'credit', 'failed', 'card_declined'],
  ['rejected', 'rejected_by_bank', 'pix', 'failed', 'card_declined'],
  ['rejected', 'cc_rejected_3ds_mandatory', 'credit', 'failed', 'authentication_required'],
  ['rejected', 'cc_rejected_3ds_challenge', 'credit', 'failed', 'card_declined'],
  ['rejected', 'bank_error', 'pix', 'failed', 'card_declined'],
  ['pending', 'pending_challenge', 'credit', 'pending', null],
  ['in_process', 'offline_process', 'credit', 'pending', null],
  ['in_process', 'deferred_retry', 'credit', 'pending', null],
  ['approved', 'partially_refunded', 'credit', 'partial_refunded', null],
  ['refunded', 'refunded', 'credit', 'refunded', null],
  ['refunded', 'by_admin', 'credit', 'refunded', null],
  ['cancelled', 'by_payer', 'pix', 'canceled', null],
  ['cancelled', 'by_collector', 'credit', 'canceled', null],
  ['cancelled', 'expired', 'pix', 'failed', 'expired'],
  ['cancelled', 'expired', 'boleto', 'failed', 'overdue'],
  ['in_mediation', 'in_process', 'credit', 'dispute', null],
  ['charged_back', 'settled', 'credit', 'charged_back', null],
  ['charged_back', 'reimbursed', 'credit', 'charged_back', null],
];

describe('Mercado Pago status and status_detail', () => {
  it.each(CASES)('%s / %s (%s) → %s, %s', (status, detail, paymentType, expected, reason) => {
    expect(mapPaymentStatus(status, detail, paymentType)).toEqual({ status: expected, declineReason: reason });
  });

  it('refuses a status it does not know, rather than guess', () => {
    expect(() => mapPaymentStatus('mystery', undefined, 'credit')).toThrow(/"mystery" is not mapped/);
  });
});
