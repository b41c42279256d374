import type { DirectTransactionInput } from '../domain/direct-transaction.ts';
import type { GatewayTransaction } from './gateway-records.ts';

/**
 * What the workflow of a direct transaction (workflows/direct-transaction.ts) is called by and calls:
 * its id, input and result, its failure name, and the activities it runs (DirectTransactionActivities).
 */

/**
 * Workflow id of a direct transaction (a payment with no checkout): one per organization and request
 * Idempotency-Key, so a retried request joins the run of the first.
 */
export const directTransactionWorkflowId = (organizationId: string, idempotencyKey: string) =>
  `direct-transaction:${organizationId}:${idempotencyKey}`;

export type { DirectTransactionInput };

export type DirectTransactionResult =
  /** The gateway's transaction, recorded: approved, declined (status failed) or a pix issued. */
  | { outcome: 'charged'; payment: GatewayTransaction }
  /** The gateway definitely refused the request; nothing was charged. */
  | { outcome: 'refused'; reason: string };

/**
 * The run fails with this type when the gateway never answered and has no charge under the key:
 * nothing was charged, and a retried request (same Idempotency-Key) starts a new run.
 */
export const GATEWAY_UNAVAILABLE = 'GatewayUnavailable';

/** The direct transaction workflow as its starters see it (the API). */
export type DirectTransactionWorkflow = (input: DirectTransactionInput) => Promise<DirectTransactionResult>;

/** The activities the direct transaction workflow runs (activities/direct-transactions.ts). */
export interface DirectTransactionActivities {
  chargeDirectTransaction(input: DirectTransactionInput): Promise<GatewayTransaction>;
  findDirectTransaction(organizationId: string, idempotencyKey: string): Promise<GatewayTransaction | null>;
  recordDirectTransaction(
    organizationId: string,
    payment: GatewayTransaction,
    customerEmail: string | null,
  ): Promise<string>;
}
