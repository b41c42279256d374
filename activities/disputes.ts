import type { EntityManager } from '@mikro-orm/postgresql';
import { insertEvents } from '../db/event/events.ts';
import { recordTransactionDisputeStatus } from '../db/checkout/transactions.ts';
import { lockPaymentOfGatewayTransaction } from '../db/checkout/refund-reads.ts';
import { insertDispute, lockDisputeOfGateway, recordSaleChargedBack, updateDispute } from '../db/sale/disputes.ts';
import { lockSaleOfTransaction } from '../db/sale/sales.ts';
import { subscriptionSettingsOf } from '../db/organization/subscription-reads.ts';
import type { Orm } from '../db/orm.ts';
import type { ChargebackOutcome, DisputeActivities } from '../contracts/dispute.ts';
import type { GatewayChargeback } from '../contracts/gateway-records.ts';
import { chargebackSubscriptionAction, disputeMove } from '../domain/disputes.ts';
import { transactionStatusAfterRefunds } from '../domain/refunds.ts';
import { offersChargebacks } from '../gateway/capabilities.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { saleRecordIn } from '../use-cases/sale-records.ts';
import { callGateway } from './gateway-failures.ts';

export interface DisputeDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

export function createDisputeActivities(deps: DisputeDeps) {
  return {
    /**
     * A chargeback the gateway notified (decision 0072): read from the gateway outside any transaction
     * (no lock across a gateway call), then written under the payment's and the sale's row locks (the
     * refunds' lock order, so a dispute and a refund never both count the same money) and the dispute's.
     */
    async recordChargeback(gatewayChargebackId: string): Promise<ChargebackOutcome> {
      const gateway = deps.gateway;
      if (!offersChargebacks(gateway)) return { recorded: null, reason: 'unknown_chargeback' };
      const chargeback = await callGateway(() => gateway.getChargeback(gatewayChargebackId));
      if (!chargeback) return { recorded: null, reason: 'unknown_chargeback' };
      return deps.orm.em.fork().transactional((tx) => record(tx, chargeback));
    },
  } satisfies DisputeActivities;
}

/** The dispute's row, the sale's total taken back, the payment's status and the sale's events. */
async function record(tx: EntityManager, chargeback: GatewayChargeback): Promise<ChargebackOutcome> {
  const payment = await lockPaymentOfGatewayTransaction(tx, chargeback.transactionId);
  if (!payment) return { recorded: null, reason: 'not_ours' };
  const sale = await lockSaleOfTransaction(tx, payment.id);
  if (!sale) return { recorded: null, reason: 'no_sale' };
  const current = await lockDisputeOfGateway(tx, chargeback.id);
  const move = disputeMove(current, chargeback.status, chargeback.amount, sale);
  if (!move) return { recorded: null, reason: 'unchanged' };
  const now = new Date();
  const written = { status: move.status, lostAmount: move.lostAmount, closedAt: move.closed ? now : null };
  let disputeId: string;
  if (current) {
    await updateDispute(tx, current.id, { ...written, amount: chargeback.amount }, now);
    disputeId = current.id;
  } else {
    const row = await insertDispute(
      tx,
      {
        organizationId: sale.organizationId,
        saleId: sale.id,
        transactionId: payment.id,
        gatewayDisputeId: chargeback.id,
        amount: chargeback.amount,
        currency: chargeback.currency,
        ...written,
      },
      now,
    );
    disputeId = row.id;
  }
  if (move.saleChargedBack !== sale.chargedBackAmount) {
    await recordSaleChargedBack(tx, sale.id, move.saleChargedBack, now);
  }
  const status =
    move.transactionStatus ?? transactionStatusAfterRefunds(payment.capturedAmount, payment.refundedAmount);
  await recordTransactionDisputeStatus(tx, payment.id, status, now);
  const record = await saleRecordIn(tx, sale.id);
  await insertEvents(
    tx,
    sale.organizationId,
    move.events.map((type) => [type, record]),
  );
  return { recorded: disputeId, status: move.status, subscription: await subscriptionToTell(tx, sale, move.status) };
}

/** A lost dispute of a subscription's sale: what the merchant's setting does to the subscription. */
async function subscriptionToTell(
  tx: EntityManager,
  sale: { organizationId: string; subscriptionId: string | null },
  status: string,
) {
  if (status !== 'lost' || !sale.subscriptionId) return null;
  const action = chargebackSubscriptionAction(await subscriptionSettingsOf(tx, sale.organizationId));
  return action === 'none' ? null : { subscriptionId: sale.subscriptionId, action };
}
