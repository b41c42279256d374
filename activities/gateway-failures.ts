import { ApplicationFailure } from '@temporalio/common';
import { GatewayError } from '../gateway/port.ts';

/** A gateway failure that may not have happened (timeout, 5xx): the workflow's retry policy retries it. */
export const GATEWAY_ERROR = 'GatewayError';
/** A definite refusal: listed in the workflow's nonRetryableErrorTypes. */
export const GATEWAY_REFUSAL = 'GatewayRefusal';

/**
 * A gateway failure as Temporal should see it: GatewayError is retried by the workflow's retry
 * policy; GatewayRefusal (a definite refusal) is listed in its nonRetryableErrorTypes.
 */
export async function callGateway<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof GatewayError) {
      throw ApplicationFailure.create({
        message: err.message,
        type: err.retryable ? GATEWAY_ERROR : GATEWAY_REFUSAL,
      });
    }
    throw err;
  }
}
