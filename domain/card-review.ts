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

/**
 * How long a checkout waits for the buyer to answer their bank's 3-D Secure challenge: EMV 3-D Secure
 * has the issuer's page time a challenge out after about ten minutes, so a challenge still unanswered
 * after thirty was abandoned (the buyer closed the page), and the payment is cancelled then instead of
 * holding the checkout for the review's days. Never longer than the review's own wait.
 */
export const CARD_CHALLENGE_WAIT_SECONDS = 30 * 60;

/**
 * Until when a card payment the gateway created at `createdAt` is waited for (ISO): the review's wait,
 * or the challenge's when the payment waits on the buyer's 3-D Secure challenge.
 */
export function cardReviewDeadline(
  createdAt: Date,
  waitSeconds: number = CARD_REVIEW_WAIT_SECONDS,
  challenged = false,
): string {
  const wait = challenged ? Math.min(waitSeconds, CARD_CHALLENGE_WAIT_SECONDS) : waitSeconds;
  return new Date(createdAt.getTime() + wait * 1000).toISOString();
}
