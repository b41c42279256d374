import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventType } from '../db/events.ts';
import { writeTransactionRefundTotals } from '../db/checkout/refund-totals.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
import { writeSaleRefundTotals } from '../db/sale/refund-totals.ts';
import { insertPaidSale } from '../db/sale/sales.ts';
import type { SubscriptionTerms } from '../db/subscription/terms.ts';
import { saleRecordIn } from '../use-cases/sale-records.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { refundableAmount, saleStatusAfterRefunds, transactionStatusAfterRefunds } from '../domain/refunds.ts';
import type { PaymentGateway, RecurringCharge } from '../gateway/port.ts';
import { subscriptionChargeKeys } from '../domain/subscriptions.ts';
import { chargeCard } from './card-charges.ts';
import { summarize } from './checkout-payments.ts';
import { callGateway } from './gateway-failures.ts';

/**
 * Money a subscription moves outside its periods' charges: a plan change's prorated amount, and the
 * balance a gateway-billed subscription settles when the gateway bills a period. The gateway call
 * and its record are separate steps: the call (keyed by the caller, so a retried activity gets the
 * gateway's first answer) runs outside any transaction, and the record runs in the caller's.
 */

export type Events = [EventType, Record<string, unknown>][];

export interface ExtraCharge {
  amount: number;
  priceId: string;
  productId: string;
  key: string;
  description: string;
  at: Date;
}

/**
 * The subscription a merchant-initiated charge of its kept card bills, as the gateway's recurring
 * charges name it (Mercado Pago's subscription messaging, decision 0074): the period and today's date.
 */
export function recurringChargeOf(t: SubscriptionTerms, period: number): RecurringCharge {
  return {
    subscriptionId: t.id,
    sequence: period,
    interval: t.interval,
    intervalCount: t.intervalCount ?? 1,
    billingDate: new Date().toISOString().slice(0, 10),
  };
}

/** Charges the saved card `amount` (captured); a decline is an answer, not an error. */
export async function chargeSavedCard(
  gateway: PaymentGateway,
  t: SubscriptionTerms,
  charge: Pick<ExtraCharge, 'amount' | 'key' | 'description'>,
): Promise<PaymentSummary> {
  return summarize(
    await chargeCard(
      gateway,
      {
        reference: t.id,
        amount: charge.amount,
        currency: t.currency.toUpperCase(),
        installments: 1,
        noFeesInstallments: true,
        card: { token: t.cardTokenId! },
        capture: true,
        description: charge.description,
        // The merchant's charge on the kept card, nobody at it: answered at once (decision 0069).
        initiatedBy: 'merchant',
        recurring: recurringChargeOf(t, t.periodNumber),
      },
      subscriptionChargeKeys(charge.key),
    ),
  );
}

/**
 * Records a saved card's extra charge: its transaction and, paid, its sale (with sale.created and
 * sale.paid on `events`). The decline reason when refused (its transaction is still recorded).
 */
export async function recordExtraCharge(
  tx: EntityManager,
  t: SubscriptionTerms,
  charge: ExtraCharge,
  charged: PaymentSummary,
  events: Events,
): Promise<string | null> {
  const currency = t.currency.toUpperCase();
  const transactionId = await upsertTransaction(tx, { organizationId: t.organizationId, checkoutId: null }, charged);
  if (charged.status !== 'succeeded') return charged.declineReason ?? 'card_declined';
  const id = await insertPaidSale(tx, {
    organizationId: t.organizationId,
    checkoutId: null,
    transactionId,
    customerId: t.customerId,
    productId: charge.productId,
    priceId: charge.priceId,
    subscriptionId: t.id,
    invoiceId: null,
    discountId: null,
    currency,
    subtotalAmount: charge.amount,
    discountAmount: 0,
    amount: charge.amount,
    installments: 1,
    paymentMethod: 'credit_card',
    at: charge.at,
  });
  const sale = await saleRecordIn(tx, id);
  events.push(['sale.created', sale], ['sale.paid', sale]);
  return null;
}

/**
 * Gives back up to `amount` of a period's payment (a credit the subscription holds) at the gateway:
 * no more than the payment has left. Null when nothing is left to give back.
 */
export async function refundCredit(
  gateway: PaymentGateway,
  refund: { payment: PaymentSummary; amount: number; key: string },
): Promise<{ amount: number; refunded: PaymentSummary } | null> {
  const { payment } = refund;
  const amount = Math.min(refund.amount, refundableAmount(payment.capturedAmount, payment.refundedAmount, 0));
  if (amount <= 0) return null;
  const refunded = summarize(await callGateway(() => gateway.refund(payment.id, amount, refund.key)));
  return { amount, refunded };
}

/** Records a credit's refund on the period's transaction and sale (sale.refunded on `events`). */
export async function recordCreditRefund(
  tx: EntityManager,
  t: SubscriptionTerms,
  refunded: PaymentSummary,
  events: Events,
): Promise<void> {
  const transactionId = await upsertTransaction(tx, { organizationId: t.organizationId, checkoutId: null }, refunded);
  await recordRefunds(tx, transactionId, refunded, events);
}

/**
 * A payment's refunds as the gateway counts them, on its transaction and its sale (with sale.refunded
 * on `events`): the totals are written, so recording the same refunds again changes nothing.
 */
export async function recordRefunds(
  tx: EntityManager,
  transactionId: string,
  payment: PaymentSummary,
  events: Events,
): Promise<void> {
  const { capturedAmount: captured, refundedAmount: total } = payment;
  await writeTransactionRefundTotals(tx, transactionId, {
    refundedAmount: total,
    status: transactionStatusAfterRefunds(captured, total),
  });
  const status = saleStatusAfterRefunds(captured, total);
  const saleId = await writeSaleRefundTotals(tx, transactionId, { refundedTotal: total, status });
  if (saleId) events.push(['sale.refunded', await saleRecordIn(tx, saleId)]);
}
