/**
 * Failure types that cross the activity/workflow boundary: activities raise them, workflows name
 * them in their retry policies (`nonRetryableErrorTypes`) and decide on them.
 */

/** A gateway call that may not have happened (timeout, 5xx): retried with the same key. */
export const GATEWAY_ERROR = 'GatewayError';
/** A definite refusal by the gateway: it took nothing, and retrying cannot change its mind. */
export const GATEWAY_REFUSAL = 'GatewayRefusal';

/**
 * Why a renewal try failed when the gateway made no payment to decline (dunning takes them as any
 * decline): the gateway refused the call itself (as a checkout declines it), would not charge the kept
 * card without its holder, or the subscription keeps no card.
 */
export const PROCESSING_ERROR = 'processing_error';
export const SAVED_CARD_REFUSED = 'saved_card_refused';
export const NO_SAVED_CARD = 'no_saved_card';
