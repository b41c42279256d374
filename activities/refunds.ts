import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { recordEvent } from '../db/events.ts';
import { lockTransaction, recordTransactionRefunds } from '../db/checkout/transactions.ts';
import { lockRefund, pendingRefundSum, settleRefundRow } from '../db/sale/refunds.ts';
import { lockSale, recordSaleRefunds } from '../db/sale/sales.ts';
import { refundedPayment } from '../db/checkout/refund-reads.ts';
import { findRefund } from '../db/sale/refund-reads.ts';
import type { Orm } from '../db/orm.ts';
import { refundVerdict, saleStatusAfterRefunds, transactionStatusAfterRefunds } from '../domain/refunds.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { callGateway, GATEWAY_REFUSAL } from './gateway-failures.ts';
import { mandateChargeOfPayment, refundMandateCharge } from './mandate-refunds.ts';
import { saleRecordIn } from '../use-cases/sale-records.ts';
import { REFUND_NOT_FOUND } from '../contracts/refund.ts';
import type { RefundSettlement, SettledRefundStatus } from '../contracts/refund.ts';
import type { RefundActivities } from '../contracts/refund.ts';

export interface RefundDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/** The gateway idempotency key of a refund: one gateway refund per refund record, however often this runs. */
export const refundGatewayKey = (refundId: string) => `refund:${refundId}`;

export function createRefundActivities(deps: RefundDeps) {
  async function loadRefund(em: EntityManager, refundId: string, lock = false) {
    const refund = await findRefund(em, refundId, lock);
    if (!refund) throw ApplicationFailure.nonRetryable(`Refund ${refundId} not found`, REFUND_NOT_FOUND);
    return refund;
  }

  return {
    /**
     * Asks the gateway for the refund. Keyed by the refund, so a repeat (a retry, a replay, a second
     * run) gets the first answer and never refunds twice. A refund already settled is not asked for.
     * A definite refusal is thrown as GatewayRefusal, anything else as a retryable GatewayError.
     */
    async refundAtGateway(refundId: string): Promise<'refunded' | 'already_settled'> {
      const em = deps.orm.em.fork();
      const refund = await loadRefund(em, refundId);
      if (refund.status !== 'pending') return 'already_settled';
      const payment = await refundedPayment(em, refund.transactionId);
      // A payment a Pix Automático charge made goes back as its paid pix's devolução (decision 0099).
      const chargeId = await mandateChargeOfPayment(em, payment.gatewayTransactionId);
      if (chargeId) {
        await refundMandateCharge(deps.gateway, chargeId, refund.amount, refundGatewayKey(refund.id));
        return 'refunded';
      }
      await callGateway(() =>
        deps.gateway.refund(payment.gatewayTransactionId, refund.amount, refundGatewayKey(refund.id)),
      );
      return 'refunded';
    },

    /** Records the gateway's answer, once: a refund no longer pending is left as it is. */
    async settleRefund(refundId: string, settlement: RefundSettlement): Promise<SettledRefundStatus> {
      return deps.orm.em.fork().transactional((tx) => settle(tx, refundId, settlement));
    },

    /**
     * A refund the gateway never answered for (its retries ran out): the gateway's books decide. They
     * are read outside any transaction (no lock is held across a gateway call), then compared with ours
     * under the refund's and the payment's row locks, if the payment's refunded total is still what it
     * was before the read; if another refund of the payment was recorded meanwhile, the activity fails
     * and its retry compares again, so the two sets of books are compared at one moment (see
     * refundVerdict). When the amounts cannot tell, the keyed refund is asked for once more: the
     * gateway answers a refund it made with that refund, and makes one it never made — either way
     * our record ends as the gateway's books are.
     */
    async reconcileRefund(refundId: string): Promise<SettledRefundStatus> {
      const em = deps.orm.em.fork();
      const seen = await loadRefund(em, refundId);
      if (seen.status !== 'pending') return seen.status;
      const before = await refundedPayment(em, seen.transactionId);
      const chargeId = await mandateChargeOfPayment(em, before.gatewayTransactionId);
      if (chargeId) return reconcileMandateRefund(chargeId, seen);
      const books = await callGateway(() => deps.gateway.getTransaction(before.gatewayTransactionId));
      const decided = await em.fork().transactional(async (tx) => {
        const refund = await loadRefund(tx, refundId, true);
        if (refund.status !== 'pending') return refund.status;
        const payment = await lockTransaction(tx, refund.transactionId);
        if (payment.refundedAmount !== before.refundedAmount) {
          throw ApplicationFailure.retryable('Another refund of the payment was recorded meanwhile: compare again');
        }
        if (!books) {
          return settle(tx, refundId, { status: 'failed', reason: 'gateway: no such transaction' });
        }
        const verdict = refundVerdict({
          gatewayRefunded: books.refundedAmount,
          recordedRefunded: payment.refundedAmount,
          amount: refund.amount,
          otherPending: await pendingRefundSum(tx, payment.id, refund.id),
        });
        if (verdict === 'happened') return settle(tx, refundId, { status: 'succeeded' });
        if (verdict === 'not_happened') {
          return settle(tx, refundId, { status: 'failed', reason: 'gateway: no answer, and no such refund' });
        }
        return { ambiguous: payment.gatewayTransactionId, amount: refund.amount };
      });
      if (typeof decided === 'string') return decided as SettledRefundStatus;
      let settlement: RefundSettlement = { status: 'succeeded' };
      try {
        await callGateway(() => deps.gateway.refund(decided.ambiguous, decided.amount, refundGatewayKey(refundId)));
      } catch (err) {
        if (!(err instanceof ApplicationFailure) || err.type !== GATEWAY_REFUSAL) throw err;
        settlement = { status: 'failed', reason: `gateway: ${err.message}` };
      }
      return em.fork().transactional((tx) => settle(tx, refundId, settlement));
    },
  } satisfies Partial<RefundActivities>;

  /**
   * A mandate charge's refund whose answer never came: the devolução is asked for again under its key.
   * The gateway answers the refund it made, or makes it now (our books reserved its amount, pending):
   * either way the record ends as the gateway's books are. Still processing: retried until decided.
   */
  async function reconcileMandateRefund(
    chargeId: string,
    refund: { id: string; amount: number },
  ): Promise<SettledRefundStatus> {
    let settlement: RefundSettlement = { status: 'succeeded' };
    try {
      await refundMandateCharge(deps.gateway, chargeId, refund.amount, refundGatewayKey(refund.id));
    } catch (err) {
      if (!(err instanceof ApplicationFailure) || err.type !== GATEWAY_REFUSAL) throw err;
      settlement = { status: 'failed', reason: `gateway: ${err.message}` };
    }
    return deps.orm.em.fork().transactional((tx) => settle(tx, refund.id, settlement));
  }
}

/**
 * A refund of `amount` made of `payment`: the payment's and the sale's refunded totals and statuses,
 * both rows locked by the caller. Refunds are measured against what was captured, as the gateway
 * measures its refunds (with the simulator, installment interest included; with Mercado Pago, without
 * it); the sale keeps the same tally, bounded by its own amount.
 */
export async function recordRefundedTotals(
  tx: EntityManager,
  payment: { id: string; capturedAmount: number; refundedAmount: number },
  sale: { id: string; amount: number },
  amount: number,
  now: Date,
): Promise<void> {
  const refunded = payment.refundedAmount + amount;
  const status = transactionStatusAfterRefunds(payment.capturedAmount, refunded);
  await recordTransactionRefunds(tx, payment.id, { refundedAmount: refunded, status }, now);
  await recordSaleRefunds(
    tx,
    sale.id,
    {
      refundedAmount: Math.min(sale.amount, refunded),
      status: saleStatusAfterRefunds(payment.capturedAmount, refunded),
    },
    now,
  );
}

/**
 * Settles a pending refund in one transaction: its status, and for a refund made, the payment's and
 * the sale's refunded totals and the sale.refunded event. Locks refund, payment, sale in that order.
 */
async function settle(tx: EntityManager, refundId: string, settlement: RefundSettlement): Promise<SettledRefundStatus> {
  const refund = await lockRefund(tx, refundId);
  if (refund.status !== 'pending') return refund.status;
  const now = new Date();
  if (settlement.status === 'failed') {
    const reason = refund.reason ? `${refund.reason} (${settlement.reason})` : settlement.reason;
    await settleRefundRow(tx, refundId, { status: 'failed', reason }, now);
    return 'failed';
  }
  await settleRefundRow(tx, refundId, { status: 'succeeded' }, now);
  const payment = await lockTransaction(tx, refund.transactionId);
  // A refund without a sale is recorded as made, never pending (the table's check): never settled here.
  const sale = await lockSale(tx, refund.saleId!);
  await recordRefundedTotals(tx, payment, sale, refund.amount, now);
  // The sale as its GET answers it, with this change: read the sales' one way.
  recordEvent(tx, refund.organizationId, 'sale.refunded', await saleRecordIn(tx, sale.id));
  return 'succeeded';
}
