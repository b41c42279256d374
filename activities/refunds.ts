import { LockMode } from '@mikro-orm/core';
import { ApplicationFailure } from '@temporalio/activity';
import { recordEvent } from '../db/events.ts';
import { Refund, Sale, Transaction } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { saleStatusAfterRefunds, transactionStatusAfterRefunds } from '../domain/refunds.ts';
import { GatewayError, type PaymentGateway } from '../gateway/port.ts';

export interface RefundDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/** The gateway idempotency key of a refund: one gateway refund per refund record, however often this runs. */
export const refundGatewayKey = (refundId: string) => `refund:${refundId}`;

export function createRefundActivities(deps: RefundDeps) {
  return {
    /**
     * Asks the gateway for the refund and records the outcome in one transaction. Safe to repeat:
     * the gateway call is keyed by the refund, and a refund already settled is left as it is.
     */
    async executeRefund(refundId: string): Promise<'succeeded' | 'failed'> {
      const em = deps.orm.em.fork();
      const refund = await em.findOneOrFail(Refund, { id: refundId });
      if (refund.status !== 'pending') return refund.status;
      const transaction = await em.findOneOrFail(Transaction, { id: refund.transactionId });
      let failure: string | null = null;
      try {
        await deps.gateway.refund(transaction.gatewayTransactionId, refund.amount, refundGatewayKey(refund.id));
      } catch (err) {
        // A definite refusal settles the refund as failed; anything else is retried by the workflow.
        if (err instanceof GatewayError && !err.retryable) failure = err.message;
        else throw err instanceof GatewayError ? ApplicationFailure.retryable(err.message, 'GatewayError') : err;
      }
      return em.transactional(async (tx) => {
        const current = await tx.findOneOrFail(Refund, { id: refundId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (current.status !== 'pending') return current.status;
        const now = new Date();
        current.updatedAt = now;
        if (failure) {
          current.status = 'failed';
          current.reason = current.reason ? `${current.reason} (gateway: ${failure})` : `gateway: ${failure}`;
          return 'failed';
        }
        current.status = 'succeeded';
        const txRow = await tx.findOneOrFail(
          Transaction,
          { id: current.transactionId },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        txRow.refundedAmount += current.amount;
        txRow.status = transactionStatusAfterRefunds(txRow.capturedAmount, txRow.refundedAmount);
        txRow.updatedAt = now;
        const sale = await tx.findOneOrFail(Sale, { id: current.saleId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        // Refunds are measured against what was captured (installment interest included); the sale keeps
        // the same tally, bounded by its own amount.
        sale.refundedAmount = Math.min(sale.amount, txRow.refundedAmount);
        sale.status = saleStatusAfterRefunds(txRow.capturedAmount, txRow.refundedAmount);
        sale.updatedAt = now;
        recordEvent(tx, current.organizationId, 'sale.refunded', {
          sale_id: sale.id,
          refund_id: current.id,
          amount: current.amount,
          refunded_amount: txRow.refundedAmount,
          status: sale.status,
        });
        return 'succeeded';
      });
    },
  };
}
