import { describe, expect, it } from '@jest/globals';
import { chargebackSubscriptionAction, disputeMove } from '../../domain/disputes.ts';
import { disputeStatus } from '../../gateway/mercadopago-chargebacks.ts';

const sale = { amount: 10_000, refundedAmount: 0, chargedBackAmount: 0 };

describe('disputeMove (decision 0072)', () => {
  it('opens, then loses: the amount is taken back and the payment charged back', () => {
    expect(disputeMove(null, 'opened', 10_000, sale)).toEqual({
      status: 'opened',
      lostAmount: 0,
      saleChargedBack: 0,
      transactionStatus: 'dispute',
      closed: false,
      events: ['sale.disputed'],
    });
    expect(disputeMove({ status: 'opened', lostAmount: 0 }, 'lost', 10_000, sale)).toMatchObject({
      lostAmount: 10_000,
      saleChargedBack: 10_000,
      transactionStatus: 'charged_back',
      events: ['sale.dispute_closed'],
    });
  });

  it('takes back no more than the sale still holds after refunds and other lost disputes', () => {
    const partly = { amount: 10_000, refundedAmount: 3_000, chargedBackAmount: 2_000 };
    expect(disputeMove(null, 'lost', 10_000, partly)).toMatchObject({
      lostAmount: 5_000,
      saleChargedBack: 7_000,
      events: ['sale.disputed', 'sale.dispute_closed'],
    });
  });

  it('gives the money back when a lost decision is reversed, and does nothing for the same state', () => {
    const lost = { amount: 10_000, refundedAmount: 0, chargedBackAmount: 4_000 };
    expect(disputeMove({ status: 'lost', lostAmount: 4_000 }, 'won', 4_000, lost)).toMatchObject({
      lostAmount: 0,
      saleChargedBack: 0,
      transactionStatus: null,
    });
    expect(disputeMove({ status: 'lost', lostAmount: 4_000 }, 'lost', 4_000, lost)).toBeNull();
  });
});

describe("a chargeback's outcome at Mercado Pago", () => {
  it('reads the SDK status, else the payment, else the coverage and documentation', () => {
    expect(disputeStatus({ status: 'lost' }, null)).toBe('lost');
    expect(disputeStatus({ status: 'in_review' }, { status: 'charged_back', status_detail: 'reimbursed' })).toBe('won');
    expect(disputeStatus({}, { status: 'charged_back', status_detail: 'settled' })).toBe('lost');
    expect(disputeStatus({}, { status: 'charged_back', status_detail: 'in_process' })).toBe('opened');
    expect(disputeStatus({ coverage_applied: true }, null)).toBe('won');
    expect(disputeStatus({ documentation_status: 'not_supplied' }, null)).toBe('lost');
    expect(disputeStatus({ documentation_status: 'review_pending' }, null)).toBe('opened');
  });
});

describe('chargeback_subscription_action', () => {
  it('is past_due unless the merchant chose cancel or none', () => {
    expect(chargebackSubscriptionAction({})).toBe('past_due');
    expect(chargebackSubscriptionAction(null)).toBe('past_due');
    expect(chargebackSubscriptionAction({ chargeback_subscription_action: 'cancel' })).toBe('cancel');
    expect(chargebackSubscriptionAction({ chargeback_subscription_action: 'none' })).toBe('none');
    expect(chargebackSubscriptionAction({ chargeback_subscription_action: 'pause' })).toBe('past_due');
  });
});
