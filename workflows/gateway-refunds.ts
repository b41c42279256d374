import { proxyActivities } from '@temporalio/workflow';
import type { GatewayRefundActivities, GatewayRefundsOutcome } from '../contracts/refund.ts';
import { asSystem } from './actor-interceptors.ts';

const { recordGatewayRefunds } = proxyActivities<GatewayRefundActivities>({
  startToCloseTimeout: '30 seconds',
  // The gateway said it refunded: retried until our books hold it (an outage only delays it).
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/**
 * Records what the gateway refunded on a payment outside the engine (Mercado Pago's panel), as a
 * refund of its sale: the activity reads the gateway's books itself and compares them with ours under
 * the payment's lock (decision 0068). The gateway's doing, not a person's.
 */
export async function gatewayRefundsWorkflow(gatewayTransactionId: string): Promise<GatewayRefundsOutcome> {
  return asSystem(() => recordGatewayRefunds(gatewayTransactionId));
}
