import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  gatewayMadeRefund,
  refundableAmount,
  refundAmount,
  refundVerdict,
  saleStatusAfterRefunds,
  transactionStatusAfterRefunds,
} from '../../domain/refunds.ts';

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

describe('a refund asked of a sale', () => {
  const payment = { captured: 10_000, refunded: 2_500, pending: 1_500 };

  it('gives back what is asked, or all that is left when no amount is named', () => {
    expect(refundAmount(6_000, payment)).toEqual({ amount: 6_000 });
    expect(refundAmount(undefined, payment)).toEqual({ amount: 6_000 });
    expect(refundAmount(1, payment)).toEqual({ amount: 1 });
  });

  it('refuses more than is left, saying how much is', () => {
    expect(refundAmount(6_001, payment)).toEqual({
      code: 'refund_exceeds_captured',
      message: 'Refund exceeds what can still be refunded',
      detail: 'At most 6000 cents can still be refunded',
    });
  });

  it('counts what lost disputes took back as given, and refuses while a dispute is open', () => {
    // 10 000 captured, 2 500 refunded, 1 500 pending, 4 000 taken back by a lost dispute: 2 000 left.
    expect(refundAmount(undefined, { ...payment, chargedBack: 4_000 })).toEqual({ amount: 2_000 });
    expect(refundAmount(2_001, { ...payment, chargedBack: 4_000 })).toMatchObject({
      detail: 'At most 2000 cents can still be refunded',
    });
    expect(refundAmount(undefined, { ...payment, chargedBack: 6_000 })).toMatchObject({ code: 'nothing_to_refund' });
    expect(refundAmount(1, { ...payment, disputeOpen: true })).toMatchObject({ code: 'sale_disputed' });
  });

  it('refuses a sale with nothing left, or no payment at all', () => {
    const nothing = { code: 'nothing_to_refund', message: 'Nothing left to refund on this sale' };
    expect(refundAmount(undefined, { captured: 10_000, refunded: 10_000, pending: 0 })).toEqual(nothing);
    expect(refundAmount(100, { captured: 10_000, refunded: 4_000, pending: 6_000 })).toEqual(nothing);
    expect(refundAmount(undefined, null)).toEqual(nothing);
  });
});

describe('the verdict on a refund the gateway never answered for', () => {
  it('is never wrong: "happened" only when it did, "not_happened" only when it did not', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.integer({ min: 1, max: 100_000 }),
        fc.boolean(),
        fc.array(fc.record({ amount: fc.integer({ min: 1, max: 100_000 }), happened: fc.boolean() }), {
          maxLength: 5,
        }),
        (recorded, amount, happened, others) => {
          // The gateway's total: what our settled refunds account for, plus each pending refund it made.
          const gatewayRefunded =
            recorded + (happened ? amount : 0) + others.reduce((sum, o) => sum + (o.happened ? o.amount : 0), 0);
          const verdict = refundVerdict({
            gatewayRefunded,
            recordedRefunded: recorded,
            amount,
            otherPending: others.reduce((sum, o) => sum + o.amount, 0),
          });
          if (verdict === 'happened') expect(happened).toBe(true);
          if (verdict === 'not_happened') expect(happened).toBe(false);
          // With no other pending refund the books always tell.
          if (others.length === 0) expect(verdict).toBe(happened ? 'happened' : 'not_happened');
        },
      ),
    );
  });

  it('reads the books', () => {
    expect(refundVerdict({ gatewayRefunded: 500, recordedRefunded: 500, amount: 100, otherPending: 0 })).toBe(
      'not_happened',
    );
    expect(refundVerdict({ gatewayRefunded: 600, recordedRefunded: 500, amount: 100, otherPending: 0 })).toBe(
      'happened',
    );
    // 100 unaccounted for, and another pending refund of 100 could be it.
    expect(refundVerdict({ gatewayRefunded: 600, recordedRefunded: 500, amount: 100, otherPending: 100 })).toBe(
      'ambiguous',
    );
    // 150 unaccounted for: more than the other pending refund of 100 explains.
    expect(refundVerdict({ gatewayRefunded: 650, recordedRefunded: 500, amount: 50, otherPending: 100 })).toBe(
      'happened',
    );
  });
});

describe('a refund made at the gateway (decision 0068)', () => {
  const books = { gatewayRefunds: [], captured: 10_000, recordedRefunded: 0, pending: 0 };

  it('is what the gateway refunded beyond our settled and pending refunds', () => {
    expect(gatewayMadeRefund({ ...books, gatewayRefunded: 10_000 })).toEqual({ amount: 10_000, gatewayRefundIds: [] });
    expect(gatewayMadeRefund({ ...books, gatewayRefunded: 5_000, recordedRefunded: 2_000 })?.amount).toBe(3_000);
    // A refund of ours the gateway made but whose workflow has not settled it yet is not the panel's.
    expect(gatewayMadeRefund({ ...books, gatewayRefunded: 5_000, recordedRefunded: 2_000, pending: 3_000 })).toBeNull();
    expect(gatewayMadeRefund({ ...books, gatewayRefunded: 2_000, recordedRefunded: 2_000 })).toBeNull();
  });

  it('never more than is left of the capture', () => {
    expect(gatewayMadeRefund({ ...books, gatewayRefunded: 12_000, recordedRefunded: 4_000 })?.amount).toBe(6_000);
  });

  it("is named by the gateway's newest refunds that make it up", () => {
    const gatewayRefunds = [
      { id: 'a', amount: 2_000 },
      { id: 'b', amount: 1_000 },
      { id: 'c', amount: 500 },
    ];
    expect(gatewayMadeRefund({ ...books, gatewayRefunds, gatewayRefunded: 3_500, recordedRefunded: 2_000 })).toEqual({
      amount: 1_500,
      gatewayRefundIds: ['c', 'b'],
    });
  });
});
