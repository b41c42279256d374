import type { SaleRow } from '../db/sale/portal-reads.ts';
import type { SubscriptionChargeRow, SubscriptionRow } from '../db/subscription/record.ts';

/**
 * Every charge of a subscription as its customer sees it: the renewal timeline's tries
 * (`subscription_charges`, refused ones included) and the sales no try accounts for: the first
 * checkout's sale, which starts the subscription rather than renewing it, and extra charges.
 */

export interface TimelineEntry {
  at: Date;
  /** The period it paid (or tried to); null for an extra charge. */
  period: number | null;
  tryNumber: number | null;
  amount: number;
  currency: string;
  outcome: 'succeeded' | 'failed' | 'refunded' | 'partially_refunded';
  declineReason: string | null;
}

const saleOutcome = (s: SaleRow): TimelineEntry['outcome'] => (s.status === 'paid' ? 'succeeded' : s.status);

export function subscriptionTimeline(
  subscription: Pick<SubscriptionRow, 'checkoutId' | 'trialEnd'>,
  charges: SubscriptionChargeRow[],
  sales: SaleRow[],
): TimelineEntry[] {
  const saleOfTransaction = new Map(sales.filter((s) => s.transactionId).map((s) => [s.transactionId!, s]));
  const saleOfCheckout = new Map(sales.filter((s) => s.checkoutId).map((s) => [s.checkoutId!, s]));
  const counted = new Set<string>();
  const tries = charges.map((c): TimelineEntry => {
    const sale =
      (c.transactionId ? saleOfTransaction.get(c.transactionId) : undefined) ??
      (c.checkoutId ? saleOfCheckout.get(c.checkoutId) : undefined);
    if (sale) counted.add(sale.id);
    return {
      at: c.attemptedAt,
      period: c.periodNumber,
      tryNumber: c.tryNumber,
      amount: Number(c.amount),
      currency: c.currency,
      // A refund made after the try (the merchant's) is the sale's to say.
      outcome: sale && c.outcome === 'succeeded' ? saleOutcome(sale) : c.outcome,
      declineReason: c.declineReason ?? null,
    };
  });
  const others = sales
    .filter((s) => !counted.has(s.id))
    .map((s): TimelineEntry => {
      const first = s.checkoutId != null && s.checkoutId === subscription.checkoutId;
      return {
        at: s.createdAt,
        period: first ? (subscription.trialEnd ? 0 : 1) : null,
        tryNumber: first ? 1 : null,
        amount: Number(s.amount),
        currency: s.currency,
        outcome: saleOutcome(s),
        declineReason: null,
      };
    });
  return [...tries, ...others].sort((a, b) => a.at.getTime() - b.at.getTime());
}
