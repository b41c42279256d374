import { describe, expect, it } from '@jest/globals';
import { combinedSums } from '../../domain/metrics.ts';

describe('metrics: the owners’ sums combined', () => {
  const sales = [
    { revenue: 100, refunds: 25, salesCount: 2, refundedSalesCount: 1, chargebacks: 30, disputedSalesCount: 1 },
    { revenue: 0, refunds: 0, salesCount: 0, refundedSalesCount: 0, chargebacks: 0, disputedSalesCount: 0 },
  ];
  const checkouts = [
    { checkouts: 3, succeededCheckouts: 2 },
    { checkouts: 1, succeededCheckouts: 0 },
  ];
  const subscriptions = [
    { newSubscriptions: 1, churnedSubscriptions: 0, activeSubscriptions: 4, mrr: 4333 },
    { newSubscriptions: 0, churnedSubscriptions: 1, activeSubscriptions: 3, mrr: 3000 },
  ];

  it('puts each period’s sales, checkouts and subscriptions together, in the periods’ order', () => {
    expect(combinedSums(sales, checkouts, subscriptions)).toEqual([
      {
        revenue: 100,
        refunds: 25,
        sales_count: 2,
        refunded_sales_count: 1,
        chargebacks: 30,
        disputed_sales_count: 1,
        new_subscriptions: 1,
        churned_subscriptions: 0,
        active_subscriptions: 4,
        mrr: 4333,
        checkouts: 3,
        succeeded_checkouts: 2,
      },
      {
        revenue: 0,
        refunds: 0,
        sales_count: 0,
        refunded_sales_count: 0,
        chargebacks: 0,
        disputed_sales_count: 0,
        new_subscriptions: 0,
        churned_subscriptions: 1,
        active_subscriptions: 3,
        mrr: 3000,
        checkouts: 1,
        succeeded_checkouts: 0,
      },
    ]);
  });

  it('refuses lists of different lengths (owners that bucketed different periods)', () => {
    expect(() => combinedSums(sales, checkouts.slice(1), subscriptions)).toThrow(/periods/);
  });
});
