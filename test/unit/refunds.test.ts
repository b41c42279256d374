import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { refundableAmount, saleStatusAfterRefunds, transactionStatusAfterRefunds } from '../../domain/refunds.ts';

describe('refund rules', () => {
  it('never lets more than was paid come back', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.nat(1_000_000), fc.nat(1_000_000), (paid, refunded, pending) => {
        const left = refundableAmount(paid, refunded, pending);
        expect(left).toBeGreaterThanOrEqual(0);
        expect(left + Math.min(paid, refunded + pending)).toBe(paid);
      }),
    );
  });

  it('counts pending refunds as already taken', () => {
    expect(refundableAmount(1000, 300, 200)).toBe(500);
    expect(refundableAmount(1000, 600, 600)).toBe(0);
  });

  it('moves a sale from paid to partially refunded to refunded', () => {
    expect(saleStatusAfterRefunds(1000, 0)).toBe('paid');
    expect(saleStatusAfterRefunds(1000, 1)).toBe('partially_refunded');
    expect(saleStatusAfterRefunds(1000, 999)).toBe('partially_refunded');
    expect(saleStatusAfterRefunds(1000, 1000)).toBe('refunded');
  });

  it('names the transaction statuses of the spec', () => {
    expect(transactionStatusAfterRefunds(1000, 0)).toBe('succeeded');
    expect(transactionStatusAfterRefunds(1000, 400)).toBe('partial_refunded');
    expect(transactionStatusAfterRefunds(1000, 1000)).toBe('refunded');
  });
});
