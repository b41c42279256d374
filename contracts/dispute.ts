import type { GatewayDisputeStatus } from './gateway-records.ts';

/**
 * The workflow that records a gateway's chargeback (dispute) of a payment, started by the gateway's
 * notice: one per chargeback and state the gateway showed, so a repeated notice joins the run under
 * way (or starts one that finds nothing new) and a later state starts another (decision 0072).
 */
export const chargebackWorkflowId = (gatewayChargebackId: string, status: GatewayDisputeStatus) =>
  `chargeback:${gatewayChargebackId}:${status}`;

/** What to do to a subscription whose sale a lost dispute took back (the merchant's setting, not `none`). */
export type ChargedBackSubscription = { subscriptionId: string; action: 'past_due' | 'cancel' };

/** What recordChargeback did: the dispute it wrote (and the subscription to tell), or why nothing. */
export type ChargebackOutcome =
  | { recorded: string; status: GatewayDisputeStatus; subscription: ChargedBackSubscription | null }
  | { recorded: null; reason: 'unknown_chargeback' | 'not_ours' | 'no_sale' | 'unchanged' };

/** The chargeback workflow as its starter sees it (the notice routes). */
export type ChargebackWorkflow = (gatewayChargebackId: string) => Promise<ChargebackOutcome>;

/** The activities it runs (activities/disputes.ts). */
export interface DisputeActivities {
  recordChargeback(gatewayChargebackId: string): Promise<ChargebackOutcome>;
}
