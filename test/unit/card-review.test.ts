import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../config/env.ts';
import { cardReviewDeadline, CARD_REVIEW_WAIT_SECONDS } from '../../domain/card-review.ts';
import { confirmationAllowed } from '../../domain/checkout.ts';
import { mapPaymentStatus } from '../../gateway/mercadopago-status.ts';

describe('a card under review (decision 0070)', () => {
  it('is waited for four days after the gateway made it, unless CARD_REVIEW_WAIT_SECONDS says otherwise', () => {
    const created = new Date('2026-05-01T21:00:00Z'); // a Friday evening
    expect(cardReviewDeadline(created)).toBe('2026-05-05T21:00:00.000Z');
    expect(cardReviewDeadline(created, 90)).toBe('2026-05-01T21:01:30.000Z');
    expect(loadConfig({}, 'worker').CARD_REVIEW_WAIT_SECONDS).toBe(CARD_REVIEW_WAIT_SECONDS);
    expect(loadConfig({ CARD_REVIEW_WAIT_SECONDS: '60' }, 'worker').CARD_REVIEW_WAIT_SECONDS).toBe(60);
    expect(() => loadConfig({ CARD_REVIEW_WAIT_SECONDS: '0' }, 'worker')).toThrow(/CARD_REVIEW_WAIT_SECONDS/);
  });

  it("waits thirty minutes for the buyer's 3-D Secure challenge, never longer than the review's wait", () => {
    const created = new Date('2026-05-01T21:00:00Z');
    expect(cardReviewDeadline(created, CARD_REVIEW_WAIT_SECONDS, true)).toBe('2026-05-01T21:30:00.000Z');
    expect(cardReviewDeadline(created, 90, true)).toBe('2026-05-01T21:01:30.000Z');
  });

  it("is what Mercado Pago's in_process and pending card payments are: pending, never a refusal", () => {
    for (const [status, detail] of [
      ['in_process', 'pending_contingency'],
      ['in_process', 'pending_review_manual'],
      ['pending', 'pending_challenge'],
    ]) {
      expect(mapPaymentStatus(status!, detail, 'credit')).toEqual({ status: 'pending', declineReason: null });
    }
  });

  it('gives way to another card, a pix or a boleto; a pending pix or boleto only to a card', () => {
    const reviewed = { status: 'confirmed' as const, paymentMethod: 'credit_card', pendingPayment: true };
    for (const method of ['credit_card', 'pix', 'boleto'] as const) {
      expect(confirmationAllowed(reviewed, method)).toBe(true);
      expect(confirmationAllowed({ ...reviewed, pendingPayment: false }, method)).toBe(false);
    }
    const pix = { status: 'confirmed' as const, paymentMethod: 'pix', pendingPayment: true };
    expect(confirmationAllowed(pix, 'credit_card')).toBe(true);
    expect(confirmationAllowed(pix, 'boleto')).toBe(false);
    expect(confirmationAllowed({ ...reviewed, status: 'succeeded' }, 'credit_card')).toBe(false);
  });
});
