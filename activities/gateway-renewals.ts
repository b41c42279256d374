import { offersSandboxRecurringBilling, recurringBillingOf } from '../gateway/capabilities.ts';
import { ApplicationFailure } from '@temporalio/activity';
import { insertEvents } from '../db/events.ts';
import { pendingInvoiceIds } from '../db/invoice/records.ts';
import type { Orm } from '../db/orm.ts';
import { addToBalance, claimBalanceSettlement } from '../db/subscription/rows.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { balanceSettlementKey, gatewayCancelKey, gatewayCycleOf, sandboxCycleKey } from '../domain/subscriptions.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { summarize } from './checkout-payments.ts';
import { callGateway } from './gateway-failures.ts';
import {
  chargeSavedCard,
  recordCreditRefund,
  recordExtraCharge,
  refundCredit,
  type Events,
} from './subscription-extra-charges.ts';
import { lockedTerms } from './subscription-lifecycle.ts';
import type { GatewayPeriodOutcome } from '../contracts/subscription.ts';
import type { SubscriptionActivities } from '../contracts/subscription.ts';

/**
 * The steps of a gateway-billed subscription (`recurrence_billing: gateway`): the gateway's own
 * recurrence charges each period, so these only ask it what happened and stop it. A notice from the
 * gateway is only a reason to ask: what is recorded always comes from the gateway's own books.
 */

export function createGatewayRenewalActivities(deps: { orm: Orm; gateway: PaymentGateway }) {
  const { orm, gateway } = deps;

  async function gatewaySubscriptionOf(subscriptionId: string) {
    const t = await lockedTerms(orm.em.fork(), subscriptionId);
    if (!t.gatewaySubscriptionId) {
      throw ApplicationFailure.nonRetryable(
        `Subscription ${subscriptionId} is not billed by the gateway`,
        'NotGatewayBilled',
      );
    }
    return { t, gatewaySubscriptionId: t.gatewaySubscriptionId };
  }

  return {
    /** Asks the gateway for the invoice of the period's cycle and the charge of its last try. */
    async reconcileGatewayPeriod(input: { subscriptionId: string; period: number }): Promise<GatewayPeriodOutcome> {
      const { t, gatewaySubscriptionId } = await gatewaySubscriptionOf(input.subscriptionId);
      const cycle = gatewayCycleOf(input.period, t.trialEnd != null);
      const invoices = await callGateway(() =>
        recurringBillingOf(gateway).listSubscriptionInvoices(gatewaySubscriptionId),
      );
      const invoice = invoices.find((i) => i.cycle === cycle);
      const open = {
        state: 'open' as const,
        amount: t.amount,
        currency: t.currency.toUpperCase(),
        payment: null,
      };
      if (!invoice?.transactionId || invoice.status === 'pending' || invoice.status === 'voided') return open;
      const charge = await callGateway(() => gateway.getTransaction(invoice.transactionId!));
      if (!charge) return open;
      return {
        state: invoice.status === 'paid' ? 'paid' : 'failed',
        amount: invoice.amount,
        currency: invoice.currency.toUpperCase(),
        payment: summarize(charge),
      };
    },

    /**
     * The gateway billed period `period` (entered): the subscription's balance, which its recurrence
     * cannot take (a plan change's credit or amount owed), is settled with it. An amount owed is charged
     * to the saved card (refused, it waits for the next period); a credit is given back from the
     * period's payment, and what that cannot cover waits for the next. Once per period, keyed by it.
     */
    async settleGatewayBalance(input: {
      subscriptionId: string;
      period: number;
      payment: PaymentSummary;
      at: string;
    }): Promise<{ settled: number }> {
      return settleBalance(orm, gateway, input);
    },

    /** Stops the gateway's recurrence (the subscription ended): no period after it is ever billed. */
    async cancelGatewaySubscription(subscriptionId: string): Promise<void> {
      const { gatewaySubscriptionId } = await gatewaySubscriptionOf(subscriptionId);
      await callGateway(() =>
        recurringBillingOf(gateway).cancelSubscription(gatewaySubscriptionId, gatewayCancelKey(subscriptionId)),
      );
    },

    /** The extra-charge invoices of the subscription still pending: voided by their workflows once it ends. */
    async pendingInvoiceIds(subscriptionId: string): Promise<string[]> {
      return pendingInvoiceIds(orm.em.fork(), subscriptionId);
    },

    /**
     * A subscription on a test clock reached a period's due date (or a retry day): a sandbox gateway's
     * recurrence bills it now, as a live gateway's does on its own calendar. A gateway without a
     * sandbox recurrence is left alone (billed: false); the workflow then asks it as it always does.
     */
    async billSandboxPeriod(input: {
      subscriptionId: string;
      period: number;
      tryNumber: number;
    }): Promise<{ billed: boolean }> {
      if (!offersSandboxRecurringBilling(gateway)) return { billed: false };
      const sandbox = gateway;
      const { t, gatewaySubscriptionId } = await gatewaySubscriptionOf(input.subscriptionId);
      const cycle = gatewayCycleOf(input.period, t.trialEnd != null);
      const key = sandboxCycleKey(input.subscriptionId, input.period, input.tryNumber);
      await callGateway(() => sandbox.billSandboxCycle(gatewaySubscriptionId, cycle, key));
      return { billed: true };
    },
  } satisfies Partial<SubscriptionActivities>;
}

/** A gateway-billed period's balance settlement (settleGatewayBalance): the gateway's call, then its record. */
async function settleBalance(
  orm: Orm,
  gateway: PaymentGateway,
  input: { subscriptionId: string; period: number; payment: PaymentSummary; at: string },
): Promise<{ settled: number }> {
  const t = await lockedTerms(orm.em.fork(), input.subscriptionId);
  const balance = t.balanceAmount;
  const due = t.periodNumber === input.period && t.balanceSettledPeriod !== input.period;
  if (!due || balance === 0) return { settled: 0 };
  // The gateway first, outside any transaction (keyed by the period: a retry gets its first answer).
  const key = balanceSettlementKey(t.id, input.period);
  const at = new Date(input.at);
  const owed = {
    amount: balance,
    priceId: t.priceId,
    productId: t.productId,
    key,
    at,
    description: 'Balance owed',
  };
  const charged = balance > 0 ? await chargeSavedCard(gateway, t, owed) : null;
  const credit = balance < 0 ? await refundCredit(gateway, { payment: input.payment, amount: -balance, key }) : null;
  return orm.em.fork().transactional(async (tx) => {
    const locked = await lockedTerms(tx, input.subscriptionId, true);
    // Recorded by an earlier try of this activity: nothing more.
    if (!(await claimBalanceSettlement(tx, t.id, input.period))) return { settled: 0 };
    const events: Events = [];
    let settled = 0;
    if (charged && !(await recordExtraCharge(tx, locked, owed, charged, events))) settled = balance;
    if (credit) {
      await recordCreditRefund(tx, locked, credit.refunded, events);
      settled = -credit.amount;
    }
    await addToBalance(tx, t.id, -settled);
    await insertEvents(tx, t.organizationId, events);
    return { settled };
  });
}
