/**
 * A card payment the gateway has neither approved nor refused yet (Mercado Pago's `in_process`, its
 * manual review, or `pending`): the checkout waits for its outcome instead of taking another card, and
 * gives up on it at a deadline (docs/decisions/0070-card-payments-under-review.md). Pure: no clock.
 */

/**
 * How long a checkout waits for a card's review by default: Mercado Pago promises its outcome "in less
 * than 2 business days" (`pending_contingency`, `pending_review_manual`); four calendar days cover two
 * business days from a Friday evening across a weekend. Past it the payment is cancelled at the
 * gateway (CARD_REVIEW_WAIT_SECONDS sets another wait).
 */
export const CARD_REVIEW_WAIT_SECONDS = 4 * 24 * 3600;

/**
 * A card given up while under review (cancelled at the deadline, or for the buyer's other try) is
 * watched this long after: an approval that crossed the cancellation is refunded, never kept without a
 * sale.
 */
export const CARD_GIVEN_UP_WATCH_MS = 24 * 3600_000;

/** Why a checkout opened again when its card's review outlasted the wait (the payment was cancelled). */
export const REVIEW_EXPIRED = 'review_expired';

/** Until when a card payment the gateway created at `createdAt` is waited for (ISO). */
export function cardReviewDeadline(createdAt: Date, waitSeconds: number = CARD_REVIEW_WAIT_SECONDS): string {
  return new Date(createdAt.getTime() + waitSeconds * 1000).toISOString();
}
