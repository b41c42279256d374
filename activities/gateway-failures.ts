import { ApplicationFailure } from '@temporalio/common';
import { GATEWAY_ERROR, GATEWAY_REFUSAL, PROCESSING_ERROR, SAVED_CARD_REFUSED } from '../domain/failures.ts';
import { GatewayError, SavedCardRefused } from '../gateway/port.ts';

export { GATEWAY_ERROR, GATEWAY_REFUSAL };

/**
 * A gateway failure as Temporal should see it: GatewayError is retried by the workflow's retry
 * policy; GatewayRefusal (a definite refusal) is listed in its nonRetryableErrorTypes, with the
 * reason a caller that declines on it gives (its first detail; see refusalReason).
 */
export async function callGateway<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof GatewayError) {
      if (err.retryable) throw ApplicationFailure.create({ message: err.message, type: GATEWAY_ERROR });
      const reason = err instanceof SavedCardRefused ? SAVED_CARD_REFUSED : PROCESSING_ERROR;
      throw ApplicationFailure.create({ message: err.message, type: GATEWAY_REFUSAL, details: [reason] });
    }
    throw err;
  }
}

/**
 * Why the gateway refused a call outright (a GatewayRefusal: nothing was made), as a decline reason;
 * null for any other failure (one that may have charged, and is retried under the same key).
 */
export function refusalReason(err: unknown): string | null {
  if (!(err instanceof ApplicationFailure) || err.type !== GATEWAY_REFUSAL) return null;
  const reason = err.details?.[0];
  return typeof reason === 'string' ? reason : PROCESSING_ERROR;
}
