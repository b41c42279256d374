import { ApplicationFailure } from '@temporalio/activity';
import type { Config } from '../config/env.ts';
import { insertEvents, type EventType } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { executorOf, plainSql, type Row, type SqlExecutor } from '../db/plain-sql.ts';
import { insertPaidSale } from '../db/sales.ts';
import { saleRecord } from '../use-cases/sale-records.ts';
import type { SaleBody } from '../use-cases/schemas/sales.ts';
import { subscriptionRecord } from '../db/subscription-records.ts';
import { upsertTransaction } from '../db/transactions.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
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
import { recordRefunds, type Events } from './subscription-extra-charges.ts';
import { applyChange, boundsOf, enterPeriod, lockedTerms, recordCharge, type Terms } from './subscription-periods.ts';
import { chargeCard } from './card-charges.ts';
import { summarize } from './checkout-payments.ts';
import { callGateway } from './gateway-failures.ts';
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
async function amountOf(tx: SqlExecutor, t: Terms, period: number): Promise<number> {
  const start = boundsOf(t, period).start;
  const [d] = t.discount_id ? await tx.execute<Row[]>('select * from discounts where id = ?', [t.discount_id]) : [];
  const discount = d
    ? {
        duration: d.duration as 'once' | 'forever' | 'repeating',
        durationInMonths: (d.duration_in_months as number | null) ?? null,
        rule: discountRule({
          type: d.type as 'percentage' | 'fixed',
          basisPoints: d.basis_points as number | null,
          amount: d.amount as string | null,
          currency: d.currency as string | null,
          redemptionsCount: Number(d.redemptions_count),
        }),
      }
    : null;
  return renewalAmount(Number(t.subtotal_amount), t.currency, discount, new Date(t.billing_anchor), start);
}

/** Reading a subscription's plan, charging a period and giving a raced charge back. */
function renewalActivities(deps: { orm: Orm; gateway: PaymentGateway; config?: Config }) {
  const { gateway } = deps;
  const spreadSeconds = deps.config?.RENEWAL_SPREAD_SECONDS ?? 0;
  const db = plainSql(deps.orm);
  return {
    async loadSubscription(subscriptionId: string): Promise<SubscriptionPlan> {
      const [row] = await db.query(
        `select s.*, o.subscription_settings from subscriptions s join organizations o on o.id = s.organization_id
         where s.id = ?`,
        [subscriptionId],
      );
      if (!row)
        throw ApplicationFailure.nonRetryable(`Subscription ${subscriptionId} not found`, 'SubscriptionNotFound');
      const dunning = dunningSettings((row.subscription_settings ?? {}) as Record<string, unknown>);
      return {
        organizationId: row.organization_id as string,
        status: row.status as SubscriptionStatus,
        recurrenceBilling: row.recurrence_billing as 'gateway' | 'manual',
        periodNumber: Number(row.period_number),
        currentPeriodEnd: new Date(row.current_period_end as string).toISOString(),
        cancelAtPeriodEnd: Boolean(row.cancel_at_period_end),
        hasCard: row.card_token_id !== null,
        ...dunning,
        renewalDelayMs: renewalDelayMs(subscriptionId, spreadSeconds),
      };
    },

    /**
     * Charges the saved card for the period; a decline is an answer (status failed), not an error.
     * No lock and no transaction around the gateway call: the subscription's workflow is its only
     * writer and runs nothing else of it meanwhile, and the record (recordRenewal) is a step of its own.
     */
    async chargeRenewal(input: RenewalCharge): Promise<RenewalOutcome> {
      const read = executorOf(db.query);
      const t = await lockedTerms(read, input.subscriptionId);
      const balance = Number(t.balance_amount);
      const { charge: amount, balanceAfter } = applyBalance(await amountOf(read, t, input.period), balance);
      const currency = t.currency.toUpperCase();
      const balanceDelta = balanceAfter - balance;
      if (amount === 0) return { amount, currency, payment: null, balanceDelta };
      if (!t.card_token_id) {
        throw ApplicationFailure.nonRetryable('The subscription has no saved card', 'NoSavedCard');
      }
      const charged = await chargeCard(
        gateway,
        {
          reference: t.id,
          amount,
          currency,
          installments: 1,
          noFeesInstallments: true,
          card: { token: t.card_token_id },
          capture: true,
        },
        subscriptionChargeKeys(renewalChargeKey(t.id, input.period, input.tryNumber)),
      );
      return { amount, currency, payment: summarize(charged), balanceDelta };
    },

    /** Gives a renewal's capture back (a revocation that raced the charge): never a charge after cancellation. */
    async refundRenewal(input: RenewalCharge & { payment: PaymentSummary }): Promise<PaymentSummary> {
      const refunded = await callGateway(() =>
        gateway.refund(
          input.payment.id,
          input.payment.capturedAmount - input.payment.refundedAmount,
          `${renewalChargeKey(input.subscriptionId, input.period, input.tryNumber)}:refund`,
        ),
      );
      return summarize(refunded);
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** A period's outcome recorded: paid, refused, or given back. */
function renewalRecordActivities(deps: { orm: Orm }) {
  const db = plainSql(deps.orm);
  return {
    /**
     * A paid period: its transaction, sale and charge row, the subscription moved to the period and
     * active, and the events, in one transaction. A period already recorded changes nothing.
     */
    async recordRenewal(
      input: RenewalCharge & RenewalOutcome & { at: string; enter?: boolean },
    ): Promise<{ status: SubscriptionStatus; periodEnd: string }> {
      return db.transaction(async (sql) => {
        const tx = executorOf(sql);
        const t = await lockedTerms(tx, input.subscriptionId, true);
        const unchanged = { status: t.status, periodEnd: new Date(t.current_period_end).toISOString() };
        if (t.period_number >= input.period) return unchanged;
        const at = new Date(input.at);
        const org = t.organization_id;
        const transactionId = input.payment
          ? await upsertTransaction(tx, { organizationId: org, checkoutId: null }, input.payment)
          : null;
        const paid = { ...input, outcome: 'succeeded' as const, declineReason: null, transactionId, at };
        if (!(await recordCharge(tx, t, paid))) return unchanged; // recorded by an earlier try of this activity
        const events: [EventType, Record<string, unknown>][] = [];
        if (transactionId) {
          const sale = await renewalSale(tx, t, input, transactionId, at);
          events.push(['sale.created', sale], ['sale.paid', sale]);
        }
        await insertEvents(tx, org, events);
        // Revoked while this charge was on its way: the workflow gives the money back; the period is not entered.
        if (input.enter === false || t.status === 'canceled') return unchanged;
        if (input.balanceDelta) {
          await tx.execute('update subscriptions set balance_amount = balance_amount + ? where id = ?', [
            input.balanceDelta,
            t.id,
          ]);
        }
        return enterPeriod(tx, t, input.period, input.amount, at);
      });
    },

    /** A refused renewal try: traced with the gateway's reason; the subscription is past due. */
    async recordRenewalFailure(
      input: RenewalCharge & RenewalOutcome & { declineReason: string; at: string },
    ): Promise<SubscriptionStatus> {
      return db.transaction(async (sql) => {
        const tx = executorOf(sql);
        const t = await lockedTerms(tx, input.subscriptionId, true);
        const at = new Date(input.at);
        const transactionId = input.payment
          ? await upsertTransaction(tx, { organizationId: t.organization_id, checkoutId: null }, input.payment)
          : null;
        const traced = { ...input, outcome: 'failed' as const, transactionId, at };
        if (!(await recordCharge(tx, t, traced))) return t.status;
        return (await applyChange(tx, t, 'charge_failed', at)).status;
      });
    },

    /** A raced renewal's capture given back: the payment, its sale and its row in the timeline say so. */
    async recordRenewalRefunded(input: RenewalCharge & { payment: PaymentSummary }): Promise<void> {
      await db.transaction(async (sql) => {
        const tx = executorOf(sql);
        const t = await lockedTerms(tx, input.subscriptionId, true);
        const transactionId = await upsertTransaction(
          tx,
          { organizationId: t.organization_id, checkoutId: null },
          input.payment,
        );
        const [charge] = await tx.execute<Row[]>(
          `update subscription_charges set outcome = 'refunded'
           where subscription_id = ? and period_number = ? and try_number = ? and outcome = 'succeeded' returning id`,
          [t.id, input.period, input.tryNumber],
        );
        if (!charge) return; // recorded already (a retried activity)
        const events: Events = [];
        await recordRefunds(tx, transactionId, input.payment, events);
        await insertEvents(tx, t.organization_id, events);
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** A lifecycle change with no charge, and the cancellation at period end. */
function lifecycleActivities(deps: { orm: Orm }) {
  const db = plainSql(deps.orm);
  return {
    /** A lifecycle change with no charge: dunning exhausted, the period ended canceled, a revocation. */
    async changeSubscription(input: {
      subscriptionId: string;
      change: Extract<SubscriptionChange, 'dunning_exhausted' | 'period_ended_canceled' | 'revoked' | 'payment_due'>;
      exhaustedStatus?: DunningExhaustedStatus;
      at: string;
    }): Promise<SubscriptionRecord> {
      return db.transaction(async (sql) => {
        const tx = executorOf(sql);
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
      return db.transaction(async (sql) => {
        const tx = executorOf(sql);
        const t = await lockedTerms(tx, input.subscriptionId, true);
        if (t.status === 'canceled' || Boolean(t.cancel_at_period_end) === input.cancel) return subscriptionRecord(t);
        const [row] = await tx.execute<Row[]>(
          'update subscriptions set cancel_at_period_end = ?, modified_at = ? where id = ? returning *',
          [input.cancel, new Date(input.at), t.id],
        );
        const record = subscriptionRecord(row!);
        const event: EventType = input.cancel ? 'subscription.updated' : 'subscription.uncanceled';
        await insertEvents(tx, t.organization_id, [[event, { ...record }]]);
        return record;
      });
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** A paid renewal's sale, inserted; its event payload (the sale as its GET answers it). */
async function renewalSale(
  tx: SqlExecutor,
  t: Terms,
  input: RenewalOutcome,
  transactionId: string,
  at: Date,
): Promise<SaleBody> {
  const subtotal = Number(t.subtotal_amount);
  // The period's own price (a balance the charge settled is in the amount, not the discount).
  const price = input.amount + (input.balanceDelta ?? 0);
  const id = await insertPaidSale(tx, {
    organizationId: t.organization_id,
    checkoutId: null,
    transactionId,
    customerId: t.customer_id,
    productId: t.product_id,
    priceId: t.price_id,
    subscriptionId: t.id,
    invoiceId: null,
    discountId: t.discount_id,
    currency: input.currency,
    subtotalAmount: subtotal,
    discountAmount: subtotal - price,
    amount: input.amount,
    installments: 1,
    paymentMethod: 'credit_card',
    at,
  });
  return saleRecord(tx, id);
}
