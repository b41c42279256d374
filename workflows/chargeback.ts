import { ApplicationFailure, getExternalWorkflowHandle, proxyActivities } from '@temporalio/workflow';
import type { ChargebackOutcome, ChargedBackSubscription, DisputeActivities } from '../contracts/dispute.ts';
import { chargedBackSignal } from '../contracts/subscription.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { asSystem } from './actor-interceptors.ts';

const { recordChargeback } = proxyActivities<DisputeActivities>({
  startToCloseTimeout: '30 seconds',
  // The gateway says a payment is disputed: retried until our books hold it (an outage only delays it).
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/**
 * Records a chargeback (dispute) the gateway notified, as the gateway has it now (decision 0072): the
 * activity reads it and writes the dispute, the sale's total taken back and the events. A lost one of
 * a subscription's sale is then told to the subscription's workflow, its only writer, which moves it
 * as the merchant's setting says. The gateway's doing, not a person's.
 */
export async function chargebackWorkflow(gatewayChargebackId: string): Promise<ChargebackOutcome> {
  return asSystem(async () => {
    const outcome = await recordChargeback(gatewayChargebackId);
    if (outcome.recorded !== null && outcome.subscription) await tell(outcome.subscription);
    return outcome;
  });
}

/** The subscription's workflow hears of it; one that has ended has nothing left to change. */
async function tell({ subscriptionId, action }: ChargedBackSubscription): Promise<void> {
  try {
    await getExternalWorkflowHandle(subscriptionWorkflowId(subscriptionId)).signal(chargedBackSignal, { action });
  } catch (err) {
    // Temporal fails the signal (an ApplicationFailure) when the workflow is not running.
    if (!(err instanceof ApplicationFailure)) throw err;
  }
}
