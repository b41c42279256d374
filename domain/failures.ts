/**
 * Failure types that cross the activity/workflow boundary: activities raise them, workflows name
 * them in their retry policies (`nonRetryableErrorTypes`) and decide on them.
 */

/** A gateway call that may not have happened (timeout, 5xx): retried with the same key. */
export const GATEWAY_ERROR = 'GatewayError';
/** A definite refusal by the gateway: it took nothing, and retrying cannot change its mind. */
export const GATEWAY_REFUSAL = 'GatewayRefusal';
