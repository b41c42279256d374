import { describe, expect, it } from '@jest/globals';
import { noticeChange, unsoldRefundKey, type PaymentOwner } from '../../domain/payment-notices.ts';

const checkout = (checkoutStatus: 'open' | 'confirmed' | 'succeeded' | 'failed' | 'expired'): PaymentOwner => ({
  kind: 'checkout',
  checkoutId: 'c1',
  checkoutStatus,
  organizationId: 'o1',
});
const captured = { status: 'succeeded', capturedAmount: 5_000, refundedAmount: 0 };

describe('what a payment notice changes once its owner’s workflow has ended (decision 0071)', () => {
  it('a payment that paid a sale: nothing (its refunds and disputes are recorded by their own workflows)', () => {
    expect(noticeChange(checkout('succeeded'), true, { ...captured, status: 'refunded' })).toEqual({
      sync: false,
      refund: false,
    });
    expect(noticeChange({ kind: 'renewal', subscriptionId: 's1' }, true, captured)).toEqual({
      sync: false,
      refund: false,
    });
  });

  it.each([
    ['a checkout that failed', checkout('failed')],
    ['a checkout that expired', checkout('expired')],
    ['a checkout paid by another payment', checkout('succeeded')],
    ['a renewal try recorded refused', { kind: 'renewal', subscriptionId: 's1' } as PaymentOwner],
    ['an invoice charge recorded refused', { kind: 'invoice', invoiceId: 'i1', workflowId: 'w' } as PaymentOwner],
  ])('money without a sale, for %s: copied and given back', (_what, owner) => {
    expect(noticeChange(owner, false, captured)).toEqual({ sync: true, refund: true });
  });

  it('a direct transaction, a checkout not settled, or a payment holding nothing: copied only', () => {
    expect(noticeChange({ kind: 'direct' }, false, captured)).toEqual({ sync: true, refund: false });
    expect(noticeChange(checkout('confirmed'), false, captured)).toEqual({ sync: true, refund: false });
    expect(noticeChange(checkout('failed'), false, { ...captured, refundedAmount: 5_000 })).toEqual({
      sync: true,
      refund: false,
    });
    expect(noticeChange(checkout('failed'), false, { status: 'failed', capturedAmount: 0, refundedAmount: 0 })).toEqual(
      { sync: true, refund: false },
    );
  });

  it("a checkout's refund shares the key of its own workflow's compensation; another owner's is the payment's", () => {
    expect(unsoldRefundKey(checkout('failed'), 'p1')).toBe('checkout:c1:compensate:p1');
    expect(unsoldRefundKey({ kind: 'direct' }, 'p1')).toBe('payment:p1:unsold-refund');
  });
});
