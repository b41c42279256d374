import { ApplicationFailure } from '@temporalio/common';
import { GATEWAY_ERROR, GATEWAY_REFUSAL } from '../domain/failures.ts';
import { GatewayError } from '../gateway/port.ts';

export { GATEWAY_ERROR, GATEWAY_REFUSAL };

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
