/**
 * What a refund's workflow (workflows/refund.ts) is called by and calls: its id, its timeout, its
 * failure names and the activities it runs (RefundActivities).
 */

export const refundWorkflowId = (refundId: string) => `refund:${refundId}`;

/** The refund record is gone: nothing to refund or to settle (thrown by the refund activities). */
export const REFUND_NOT_FOUND = 'RefundNotFound';

/** How long the gateway is asked for a refund before its books are read instead. */
export const REFUND_GATEWAY_TIMEOUT = '3 days';

export type SettledRefundStatus = 'succeeded' | 'failed';

/** What the gateway said of the refund: done, or definitely refused (with its reason). */
export type RefundSettlement = { status: 'succeeded' } | { status: 'failed'; reason: string };

/** The refund workflow as its starters see it (the API). */
export type RefundWorkflow = (refundId: string) => Promise<SettledRefundStatus>;

/** The activities the refund workflow runs (activities/refunds.ts). */
export interface RefundActivities {
  refundAtGateway(refundId: string): Promise<'refunded' | 'already_settled'>;
  settleRefund(refundId: string, settlement: RefundSettlement): Promise<SettledRefundStatus>;
  reconcileRefund(refundId: string): Promise<SettledRefundStatus>;
}

/**
 * The workflow that records refunds made at the gateway (its panel), started by the gateway's notice
 * of the payment: one per payment and refunded total the gateway showed, so a repeated notice joins
 * the run under way and a larger total starts another (decision 0068).
 */
export const gatewayRefundsWorkflowId = (gatewayTransactionId: string, gatewayRefunded: number) =>
  `gateway-refunds:${gatewayTransactionId}:${gatewayRefunded}`;

/** What recordGatewayRefunds did: the refund it recorded, or why none. */
export type GatewayRefundsOutcome =
  { recorded: string } | { recorded: null; reason: 'not_ours' | 'no_sale' | 'nothing_unrecorded' | 'already_recorded' };

/** The gateway-refunds workflow as its starter sees it (the notice route). */
export type GatewayRefundsWorkflow = (gatewayTransactionId: string) => Promise<GatewayRefundsOutcome>;

/** The activity it runs (activities/gateway-refunds.ts). */
export interface GatewayRefundActivities {
  recordGatewayRefunds(gatewayTransactionId: string): Promise<GatewayRefundsOutcome>;
}
