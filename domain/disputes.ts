/**
 * Disputes (chargebacks) of a sale's payment (decision 0072): a buyer's bank disputes a payment, the
 * dispute is `opened`, and the card network decides it `won` (the merchant keeps the money) or `lost`
 * (the money goes back to the buyer). What a lost dispute takes back is recorded against the sale.
 */
export const DISPUTE_STATUSES = ['opened', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export type DisputeEvent = 'sale.disputed' | 'sale.dispute_closed';

/** What a dispute's new state changes: the dispute's row, the sale's total taken back, and the events. */
export interface DisputeMove {
  status: DisputeStatus;
  /** What the dispute takes back once lost (0 otherwise), in cents. */
  lostAmount: number;
  /** The sale's charged_back_amount after the move. */
  saleChargedBack: number;
  /** The transaction's status: `dispute` while open, `charged_back` once lost; null: as its refunds leave it. */
  transactionStatus: 'dispute' | 'charged_back' | null;
  closed: boolean;
  /** In order: a dispute first seen already decided is told as opened, then closed. */
  events: DisputeEvent[];
}

/**
 * The move a dispute makes to the gateway's `next` state; null when it is there already (a repeated
 * notice). A lost dispute takes back its amount, never more than the sale still holds (its amount less
 * what was refunded and what other lost disputes took); a decision reversed (lost, then won) gives it back.
 */
export function disputeMove(
  current: { status: DisputeStatus; lostAmount: number } | null,
  next: DisputeStatus,
  disputed: number,
  sale: { amount: number; refundedAmount: number; chargedBackAmount: number },
): DisputeMove | null {
  if (current?.status === next) return null;
  const otherLost = sale.chargedBackAmount - (current?.lostAmount ?? 0);
  const left = Math.max(0, sale.amount - sale.refundedAmount - otherLost);
  const lostAmount = next === 'lost' ? Math.min(disputed, left) : 0;
  const closed = next !== 'opened';
  const events: DisputeEvent[] = [];
  if (!current || !closed) events.push('sale.disputed');
  if (closed) events.push('sale.dispute_closed');
  return {
    status: next,
    lostAmount,
    saleChargedBack: otherLost + lostAmount,
    transactionStatus: next === 'opened' ? 'dispute' : next === 'lost' ? 'charged_back' : null,
    closed,
    events,
  };
}

/**
 * What happens to a subscription whose sale (its first payment or a renewal) was charged back, as the
 * merchant's subscription_settings say (`chargeback_subscription_action`): `past_due` (the default),
 * `cancel` (ended now), or `none`.
 */
export const CHARGEBACK_SUBSCRIPTION_ACTIONS = ['past_due', 'cancel', 'none'] as const;
export type ChargebackSubscriptionAction = (typeof CHARGEBACK_SUBSCRIPTION_ACTIONS)[number];
export const DEFAULT_CHARGEBACK_SUBSCRIPTION_ACTION: ChargebackSubscriptionAction = 'past_due';

export function chargebackSubscriptionAction(settings: Record<string, unknown> | null | undefined) {
  const chosen = settings?.chargeback_subscription_action;
  return CHARGEBACK_SUBSCRIPTION_ACTIONS.find((a) => a === chosen) ?? DEFAULT_CHARGEBACK_SUBSCRIPTION_ACTION;
}
