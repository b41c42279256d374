import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '../db/events.ts';
import { callbackHandled, recordCallback } from '../db/checkout/callbacks.ts';
import { lockPaymentOfGatewayTransaction } from '../db/checkout/refund-reads.ts';
import { insertGatewayRefund, pendingRefundSum } from '../db/sale/refunds.ts';
import { lockSaleOfTransaction } from '../db/sale/sales.ts';
import type { Orm } from '../db/orm.ts';
import type { GatewayRefundActivities, GatewayRefundsOutcome } from '../contracts/refund.ts';
import type { GatewayTransaction } from '../contracts/gateway-records.ts';
import { gatewayMadeRefund } from '../domain/refunds.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { saleRecordIn } from '../use-cases/sale-records.ts';
import { presentRefund } from '../use-cases/schemas/refunds.ts';
import { callGateway } from './gateway-failures.ts';
import { recordRefundedTotals } from './refunds.ts';

export interface GatewayRefundDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/** The gateway_callbacks key of one of the gateway's refunds: recorded once, whatever notices repeat. */
export const gatewayRefundKey = (gatewayTransactionId: string, gatewayRefundId: string) =>
  `refund:${gatewayTransactionId}:${gatewayRefundId}`;

export function createGatewayRefundActivities(deps: GatewayRefundDeps) {
  return {
    /**
     * A refund made at the gateway (decision 0068): its books are read outside any transaction (no
     * lock is held across a gateway call), then compared with ours under the payment's row lock, the
     * one our own refunds take, so two notices, or a notice and a refund of ours, never both count
     * the same money.
     */
    async recordGatewayRefunds(gatewayTransactionId: string): Promise<GatewayRefundsOutcome> {
      const books = await callGateway(() => deps.gateway.getTransaction(gatewayTransactionId));
      if (!books) return { recorded: null, reason: 'not_ours' };
      return deps.orm.em.fork().transactional((tx) => record(tx, books));
    },
  } satisfies GatewayRefundActivities;
}

/** Payment, sale: the settling's lock order. The refund, the payment's and the sale's totals, the events. */
async function record(tx: EntityManager, books: GatewayTransaction): Promise<GatewayRefundsOutcome> {
  const payment = await lockPaymentOfGatewayTransaction(tx, books.id);
  if (!payment) return { recorded: null, reason: 'not_ours' };
  const sale = await lockSaleOfTransaction(tx, payment.id);
  if (!sale) return { recorded: null, reason: 'no_sale' };
  const made = gatewayMadeRefund({
    gatewayRefunded: books.refundedAmount,
    gatewayRefunds: books.refunds ?? [],
    captured: payment.capturedAmount,
    recordedRefunded: payment.refundedAmount,
    pending: await pendingRefundSum(tx, payment.id),
  });
  if (!made) return { recorded: null, reason: 'nothing_unrecorded' };
  const keys = made.gatewayRefundIds.map((id) => gatewayRefundKey(books.id, id));
  if (keys[0] && (await callbackHandled(tx, keys[0]))) return { recorded: null, reason: 'already_recorded' };
  const now = new Date();
  const named = made.gatewayRefundIds.length > 0 ? ` (refund ${made.gatewayRefundIds.join(', ')})` : '';
  const refund = await insertGatewayRefund(
    tx,
    {
      organizationId: payment.organizationId,
      saleId: sale.id,
      transactionId: payment.id,
      amount: made.amount,
      reason: `gateway: refunded at the gateway${named}`,
    },
    now,
  );
  for (const id of keys) await recordCallback(tx, { id, type: 'refund', refundId: refund.id });
  await recordRefundedTotals(tx, payment, sale, made.amount, now);
  // The events a refund asked through the API gives: its creation, then the sale as refunded.
  recordEvent(tx, payment.organizationId, 'refund.created', presentRefund(refund, payment.currency));
  recordEvent(tx, payment.organizationId, 'sale.refunded', await saleRecordIn(tx, sale.id));
  return { recorded: refund.id };
}
