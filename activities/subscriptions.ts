import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import type { Config } from '../config/env.ts';
import { heldDiscount } from '../db/catalog/subscription-reads.ts';
import { insertEvents, type EventType } from '../db/events.ts';
import { subscriptionSettingsOf } from '../db/organization/subscription-reads.ts';
import type { Orm } from '../db/orm.ts';
import { insertPaidSale } from '../db/sale/sales.ts';
import { insertCharge, markChargeRefunded } from '../db/subscription/charges.ts';
import { subscriptionRecord } from '../db/subscription/record.ts';
import { addToBalance, findSubscription, writeCancelAtPeriodEnd } from '../db/subscription/rows.ts';
import { saleRecordIn } from '../use-cases/sale-records.ts';
import type { SaleBody } from '../use-cases/schemas/sales.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
import { saleMethodOf, type PaymentSummary } from '../domain/checkout.ts';
import { discountRule } from '../domain/discounts.ts';
import { applyBalance } from '../domain/proration.ts';
import {
  dunningSettings,
  renewalDelayMs,
  renewalAmount,
  renewalChargeKey,
  subscriptionChargeKeys,
  type DunningExhaustedStatus,
  type SubscriptionChange,
  type SubscriptionStatus,
} from '../domain/subscriptions.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { recordRefunds, recurringChargeOf, type Events } from './subscription-extra-charges.ts';
import { applyChange, boundsOf, enterPeriod, lockedTerms, type SubscriptionTerms } from './subscription-lifecycle.ts';
import { chargeCard } from './card-charges.ts';
import { summarize } from './checkout-payments.ts';
import { callGateway, refusalReason } from './gateway-failures.ts';
import { mandateChargeOfPayment, refundMandateCharge } from './mandate-refunds.ts';
import { transactionStatusAfterRefunds } from '../domain/refunds.ts';
import { NO_SAVED_CARD } from '../domain/failures.ts';
import type { SubscriptionRecord } from '../contracts/subscription.ts';
import type { RenewalCharge, RenewalOutcome, SubscriptionPlan } from '../contracts/subscription.ts';
import type { SubscriptionActivities } from '../contracts/subscription.ts';

/**
 * A subscription's steps, run by its workflow. Gateway calls are keyed by period and try
 * (domain/subscriptions.ts), so a retry returns what the gateway did the first time; every write is
 * idempotent (a period already recorded, a try already traced, a status already reached change
 * nothing). Each instant comes from the workflow (`at`), never from this machine's clock.
 */

export function createSubscriptionActivities(deps: { orm: Orm; gateway: PaymentGateway; config?: Config }) {
  return { ...renewalActivities(deps), ...renewalRecordActivities(deps), ...lifecycleActivities(deps) };
}

/** The period's price: the subtotal, less the subscription's discount while its duration lasts. */
export async function amountOf(em: EntityManager, t: SubscriptionTerms, period: number): Promise<number> {
  const start = boundsOf(t, period).start;
  const d = t.discountId ? await heldDiscount(em, t.discountId) : null;
  const discount = d
    ? {
        duration: d.duration,
        durationInMonths: d.durationInMonths ?? null,
        rule: discountRule({
          type: d.type,
          basisPoints: d.basisPoints ?? null,
          amount: d.amount ?? null,
          currency: d.currency ?? null,
          redemptionsCount: d.redemptionsCount,
        }),
      }
    : null;
  return renewalAmount(t.subtotalAmount, t.currency, discount, t.billingAnchor, start);
}

/** Reading a subscription's plan, charging a period and giving a raced charge back. */
function renewalActivities(deps: { orm: Orm; gateway: PaymentGateway; config?: Config }) {
  const { gateway } = deps;
  const spreadSeconds = deps.config?.RENEWAL_SPREAD_SECONDS ?? 0;
  return {
    async loadSubscription(subscriptionId: string): Promise<SubscriptionPlan> {
      const em = deps.orm.em.fork();
      const s = await findSubscription(em, subscriptionId);
      if (!s) throw ApplicationFailure.nonRetryable(`Subscription ${subscriptionId} not found`, 'SubscriptionNotFound');
      const dunning = dunningSettings((await subscriptionSettingsOf(em, s.organizationId)) ?? {});
      return {
        organizationId: s.organizationId,
        status: s.status,
        recurrenceBilling: s.recurrenceBilling,
        periodNumber: s.periodNumber,
        currentPeriodEnd: s.currentPeriodEnd.toISOString(),
        cancelAtPeriodEnd: s.cancelAtPeriodEnd,
        hasCard: s.cardTokenId != null,
        ...dunning,
        renewalDelayMs: renewalDelayMs(subscriptionId, spreadSeconds),
      };
    },

    /**
     * Charges the saved card for the period; a decline is an answer (status failed), not an error, and
     * so is a definite refusal of the call or a missing card (`refusal`): only an outage is thrown.
     * No lock and no transaction around the gateway call: the subscription's workflow is its only
     * writer and runs nothing else of it meanwhile, and the record (recordRenewal) is a step of its own.
     */
    async chargeRenewal(input: RenewalCharge): Promise<RenewalOutcome> {
      const em = deps.orm.em.fork();
      const t = await lockedTerms(em, input.subscriptionId);
      const balance = t.balanceAmount;
      const { charge: amount, balanceAfter } = applyBalance(await amountOf(em, t, input.period), balance);
      const currency = t.currency.toUpperCase();
      const balanceDelta = balanceAfter - balance;
      if (amount === 0) return { amount, currency, payment: null, balanceDelta };
      // No gateway answer ends the subscription's workflow: a refusal is a declined try, dunned with its reason.
      if (!t.cardTokenId) return { amount, currency, payment: null, balanceDelta, refusal: NO_SAVED_CARD };
      const card = {
        reference: t.id,
        amount,
        currency,
        installments: 1,
        noFeesInstallments: true,
        card: { token: t.cardTokenId },
        capture: true,
        // Nobody is at the card: the gateway answers approved or declined at once (decision 0069).
        initiatedBy: 'merchant' as const,
        recurring: recurringChargeOf(t, input.period),
      };
      const keys = subscriptionChargeKeys(renewalChargeKey(t.id, input.period, input.tryNumber));
      try {
        return { amount, currency, payment: summarize(await chargeCard(gateway, card, keys)), balanceDelta };
      } catch (err) {
        const refusal = refusalReason(err);
        if (refusal === null) throw err; // an outage: retried under the same keys
        return { amount, currency, payment: null, balanceDelta, refusal };
      }
    },

    /** Gives a renewal's capture back (a revocation that raced the charge): never a charge after cancellation. */
    async refundRenewal(input: RenewalCharge & { payment: PaymentSummary }): Promise<PaymentSummary> {
      const { payment } = input;
      const left = payment.capturedAmount - payment.refundedAmount;
      const key = `${renewalChargeKey(input.subscriptionId, input.period, input.tryNumber)}:refund`;
      // A period paid through the mandate goes back as its pix's devolução (decision 0099).
      if (await mandateChargeOfPayment(deps.orm.em.fork(), payment.id)) {
        const made = await refundMandateCharge(gateway, payment.id, left, key);
        const refunded = payment.refundedAmount + made.amount;
        return {
          ...payment,
          refundedAmount: refunded,
          status: transactionStatusAfterRefunds(payment.capturedAmount, refunded),
        };
      }
      return summarize(await callGateway(() => gateway.refund(payment.id, left, key)));
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** A period's outcome recorded: paid, refused, or given back. */
function renewalRecordActivities(deps: { orm: Orm }) {
  const transaction = <T>(run: (tx: EntityManager) => Promise<T>) => deps.orm.em.fork().transactional(run);
  return {
    /**
     * A paid period: its transaction, sale and charge row, the subscription moved to the period and
     * active, and the events, in one transaction. A period already recorded changes nothing.
     */
    async recordRenewal(
      input: RenewalCharge & RenewalOutcome & { at: string; enter?: boolean },
    ): Promise<{ status: SubscriptionStatus; periodEnd: string }> {
      return transaction(async (tx) => {
        const t = await lockedTerms(tx, input.subscriptionId, true);
        const unchanged = { status: t.status, periodEnd: t.currentPeriodEnd.toISOString() };
        if (t.periodNumber >= input.period) return unchanged;
        const at = new Date(input.at);
        const org = t.organizationId;
        const transactionId = input.payment
          ? await upsertTransaction(tx, { organizationId: org, checkoutId: null }, input.payment)
          : null;
        const paid = { ...input, outcome: 'succeeded' as const, declineReason: null, transactionId, at };
        if (!(await insertCharge(tx, t, paid))) return unchanged; // recorded by an earlier try of this activity
        const events: [EventType, Record<string, unknown>][] = [];
        if (transactionId) {
          const sale = await renewalSale(tx, t, input, transactionId, at);
          events.push(['sale.created', sale], ['sale.paid', sale]);
        }
        await insertEvents(tx, org, events);
        // Revoked while this charge was on its way: the workflow gives the money back; the period is not entered.
        if (input.enter === false || t.status === 'canceled') return unchanged;
        if (input.balanceDelta) await addToBalance(tx, t.id, input.balanceDelta);
        return enterPeriod(tx, t, input.period, input.amount, at);
      });
    },

    /** A refused renewal try: traced with the gateway's reason; the subscription is past due. */
    async recordRenewalFailure(
      input: RenewalCharge & RenewalOutcome & { declineReason: string; at: string },
    ): Promise<SubscriptionStatus> {
      return transaction(async (tx) => {
        const t = await lockedTerms(tx, input.subscriptionId, true);
        const at = new Date(input.at);
        const transactionId = input.payment
          ? await upsertTransaction(tx, { organizationId: t.organizationId, checkoutId: null }, input.payment)
          : null;
        const traced = { ...input, outcome: 'failed' as const, transactionId, at };
        if (!(await insertCharge(tx, t, traced))) return t.status;
        return (await applyChange(tx, t, 'charge_failed', at)).status;
      });
    },

    /** A raced renewal's capture given back: the payment, its sale and its row in the timeline say so. */
    async recordRenewalRefunded(input: RenewalCharge & { payment: PaymentSummary }): Promise<void> {
      await transaction(async (tx) => {
        const t = await lockedTerms(tx, input.subscriptionId, true);
        const transactionId = await upsertTransaction(
          tx,
          { organizationId: t.organizationId, checkoutId: null },
          input.payment,
        );
        const marked = await markChargeRefunded(tx, t.id, { period: input.period, tryNumber: input.tryNumber });
        if (!marked) return; // recorded already (a retried activity)
        const events: Events = [];
        await recordRefunds(tx, transactionId, input.payment, events);
        await insertEvents(tx, t.organizationId, events);
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** A lifecycle change with no charge, and the cancellation at period end. */
function lifecycleActivities(deps: { orm: Orm }) {
  const transaction = <T>(run: (tx: EntityManager) => Promise<T>) => deps.orm.em.fork().transactional(run);
  return {
    /** A lifecycle change with no charge: dunning exhausted, the period ended canceled, a revocation. */
    async changeSubscription(input: {
      subscriptionId: string;
      change: Extract<
        SubscriptionChange,
        'dunning_exhausted' | 'period_ended_canceled' | 'revoked' | 'payment_due' | 'charged_back'
      >;
      exhaustedStatus?: DunningExhaustedStatus;
      at: string;
    }): Promise<SubscriptionRecord> {
      return transaction(async (tx) => {
        const t = await lockedTerms(tx, input.subscriptionId, true);
        return applyChange(tx, t, input.change, new Date(input.at), input.exhaustedStatus);
      });
    },

    /** Sets or clears cancel_at_period_end, with subscription.updated or subscription.uncanceled. */
    async setCancelAtPeriodEnd(input: {
      subscriptionId: string;
      cancel: boolean;
      at: string;
    }): Promise<SubscriptionRecord> {
      return transaction(async (tx) => {
        const t = await lockedTerms(tx, input.subscriptionId, true);
        if (t.status === 'canceled' || t.cancelAtPeriodEnd === input.cancel) return subscriptionRecord(t);
        const record = subscriptionRecord(await writeCancelAtPeriodEnd(tx, t.id, input.cancel, new Date(input.at)));
        const event: EventType = input.cancel ? 'subscription.updated' : 'subscription.uncanceled';
        await insertEvents(tx, t.organizationId, [[event, { ...record }]]);
        return record;
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** A paid renewal's sale, inserted; its event payload (the sale as its GET answers it). */
async function renewalSale(
  tx: EntityManager,
  t: SubscriptionTerms,
  input: RenewalOutcome,
  transactionId: string,
  at: Date,
): Promise<SaleBody> {
  const subtotal = t.subtotalAmount;
  // The period's own price (a balance the charge settled is in the amount, not the discount).
  const price = input.amount + (input.balanceDelta ?? 0);
  const id = await insertPaidSale(tx, {
    organizationId: t.organizationId,
    checkoutId: null,
    transactionId,
    customerId: t.customerId,
    productId: t.productId,
    priceId: t.priceId,
    subscriptionId: t.id,
    invoiceId: null,
    discountId: t.discountId ?? null,
    currency: input.currency,
    subtotalAmount: subtotal,
    discountAmount: subtotal - price,
    amount: input.amount,
    installments: 1,
    // A card's renewal, or a Pix Automático cycle's pix paid through its mandate.
    paymentMethod: input.payment ? saleMethodOf(input.payment.paymentType) : 'credit_card',
    at,
  });
  return saleRecordIn(tx, id);
}
