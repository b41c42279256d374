import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import { awaitedPayment, confirmationInFlight } from '../db/checkout/lost-run-reads.ts';
import { unsettledCheckoutsPage } from '../db/checkout/sweeps.ts';
import { pendingInvoicesPage } from '../db/invoice/sweeps.ts';
import { invoiceSubscriptions } from '../db/subscription/invoice-reads.ts';
import { liveSubscriptionsPage } from '../db/subscription/sweeps.ts';
import type { ConfirmCheckoutInput, GatewayPaymentData, PendingPaymentKind } from '../domain/checkout.ts';
import { INVOICE_CREATION_WINDOW_MS } from '../domain/invoices.ts';
import { CUSTOMER_ID, ORGANIZATION_ID, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { ensureCheckoutWorkflow, ensureInvoiceWorkflow } from '../temporal/workflow-starts.ts';
import { boletoPayableUntil } from '../gateway/payment-documents.ts';
import type { SweepKind, SweepPage, SweepPageInput } from '../contracts/sweep.ts';
import type { IssuedPendingPayment } from '../contracts/checkout.ts';
import type { SweepActivities } from '../contracts/sweep.ts';
import type { CheckoutActivities } from '../contracts/checkout.ts';

/**
 * Each sweep's page, a typed statement of the table's owner. Each `where` is (or implies) the predicate of
 * a partial index (migration 0016), so a sweep reads only the live rows however many have ended
 * (test/workflow/sweep.test.ts explains each statement on its index).
 */
export const SWEEP_QUERIES = {
  subscriptions: liveSubscriptionsPage,
  invoices: pendingInvoicesPage,
  checkouts: unsettledCheckoutsPage,
} satisfies Record<SweepKind, (em: EntityManager, page: SweepPageInput) => unknown>;

/**
 * A page of pending invoices with their subscription's customer and gateway id, read from the
 * subscription object in a second statement (the foreign key keeps every invoice's subscription).
 */
async function pendingInvoices(em: EntityManager, page: SweepPageInput) {
  const invoices = await SWEEP_QUERIES.invoices(em, page).execute();
  const subscriptions = await invoiceSubscriptions(
    em,
    invoices.map((i) => i.subscriptionId),
  );
  return invoices.flatMap((invoice) => {
    const subscription = subscriptions.get(invoice.subscriptionId);
    return subscription ? [{ ...invoice, subscription }] : [];
  });
}

/** What the sweeps need: the database, and the worker's Temporal client and queues. */
interface SweepDeps {
  orm: Orm;
  temporal?: Client;
  taskQueue?: string;
  config?: Config;
}

export function createSweepActivities(deps: SweepDeps) {
  return { ...workflowSweepActivities(deps), ...lostRunActivities(deps.orm) };
}

/** The sweeps that start the workflows of live rows again, a page at a time (USE_EXISTING: a running one is left). */
function workflowSweepActivities(deps: SweepDeps) {
  /** The worker's client and queues; a worker built without them cannot sweep. */
  function starter(): { temporal: Client; batchQueue: string; interactiveQueue: string } {
    const { temporal, taskQueue, config } = deps;
    if (!temporal || !taskQueue || !config) {
      throw ApplicationFailure.nonRetryable('This worker has no Temporal client for sweeps', 'SweepUnavailable');
    }
    return { temporal, batchQueue: taskQueue, interactiveQueue: config.TEMPORAL_TASK_QUEUE };
  }

  /** One page (read on its own, outside any transaction), each row handed to `start`. */
  async function sweepPage<R extends { id: string }>(
    input: SweepPageInput,
    read: (em: EntityManager, page: SweepPageInput) => Promise<R[]>,
    start: (row: R) => Promise<void>,
  ): Promise<SweepPage> {
    const rows = await read(deps.orm.em.fork(), input);
    for (const row of rows) await start(row);
    return { checked: rows.length, next: rows.length < input.limit ? null : rows.at(-1)!.id };
  }

  return {
    /** Live subscriptions: their workflows renew them, on the batch queue. */
    async ensureSubscriptionWorkflows(input: SweepPageInput): Promise<SweepPage> {
      const { temporal, batchQueue } = starter();
      const read = (em: EntityManager, page: SweepPageInput) => SWEEP_QUERIES.subscriptions(em, page).execute();
      return sweepPage(input, read, async (row) => {
        const subscriptionId = row.id;
        await temporal.workflow.start('subscriptionWorkflow', {
          workflowId: subscriptionWorkflowId(subscriptionId),
          taskQueue: batchQueue,
          args: [{ subscriptionId }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: row.organizationId },
            { key: CUSTOMER_ID, value: row.customerId },
            { key: SUBSCRIPTION_ID, value: subscriptionId },
          ],
        });
      });
    },

    /**
     * Pending extra-charge invoices: started with the API's input and the gateway invoice the lost run
     * stored, so the new run creates nothing and settles the invoice (at once if it was paid meanwhile,
     * else at its deadline, which may have passed: then it asks the gateway and voids it unpaid). A
     * manual invoice's new run charges the kept card on its due date, with the invoice's key.
     */
    async ensureInvoiceWorkflows(input: SweepPageInput): Promise<SweepPage> {
      const { temporal, interactiveQueue } = starter();
      return sweepPage(input, pendingInvoices, (row) =>
        ensureInvoiceWorkflow(temporal, interactiveQueue, {
          invoiceId: row.id,
          organizationId: row.organizationId,
          subscriptionId: row.subscriptionId,
          customerId: row.subscription.customerId,
          gatewaySubscriptionId: row.subscription.gatewaySubscriptionId ?? null,
          amount: row.amount,
          currency: row.currency,
          description: row.description ?? null,
          dueDate: row.dueDate,
          expirationDate: row.expirationDate ?? null,
          noFeesInstallments: row.noFeesInstallments,
          answerBy: new Date(row.createdAt.getTime() + INVOICE_CREATION_WINDOW_MS).toISOString(),
          // No gateway invoice: a manual one, whose new run charges the kept card (with its key: once).
          ...(row.gatewayInvoiceId == null
            ? { billing: 'manual' as const }
            : { gatewayInvoiceId: row.gatewayInvoiceId }),
        }),
      );
    },

    /** Open checkouts, and confirmed ones waiting for their pix or boleto or for a payment answer a lost run never recorded. */
    async ensureCheckoutWorkflows(input: SweepPageInput): Promise<SweepPage> {
      const { temporal, interactiveQueue } = starter();
      const read = (em: EntityManager, page: SweepPageInput) => SWEEP_QUERIES.checkouts(em, page).execute();
      return sweepPage(input, read, (row) => ensureCheckoutWorkflow(temporal, interactiveQueue, row));
    },
  } satisfies Partial<SweepActivities>;
}

/** What a checkout workflow started again by a sweep reads of the run it replaces. */
function lostRunActivities(orm: Orm) {
  return {
    /**
     * The confirmation whose payment call a lost run made without recording its answer, as the buyer
     * sent it (without the buyer's details, written on the checkout already); null when there is none.
     * A checkout workflow started again asks the gateway about the call it keyed (workflows/checkout.ts).
     */
    async paymentInFlight(checkoutId: string): Promise<ConfirmCheckoutInput | null> {
      const c = await confirmationInFlight(orm.em.fork(), checkoutId);
      if (!c) return null;
      return {
        paymentMethod: c.payment_method,
        card: c.card,
        installments: c.installments,
        buyer: { email: null, name: null, taxId: null },
        discountCode: null,
      };
    },

    /**
     * The pix or boleto a confirmed checkout issued and still waits for, read by a checkout workflow
     * started again (workflows/checkout.ts); null when there is none. Its deadline is the one the
     * issuing step computed (activities/checkout-payments.ts): the pix's expiry, or the boleto's due
     * date and its grace days.
     */
    async issuedPendingPayment(checkoutId: string): Promise<IssuedPendingPayment | null> {
      const row = await awaitedPayment(orm.em.fork(), checkoutId);
      if (!row) return null;
      // The predicate read a pix or boleto with its transaction id stored (AWAITING_PAYMENT).
      const data = row.gatewayPaymentData as Partial<GatewayPaymentData> & { transaction_id: string };
      if (row.paymentMethod === 'credit_card') {
        // A card under review: until the end of its wait (decision 0070), charged with the confirmation's card.
        const until = data.review?.until ?? row.expiresAt.toISOString();
        const c = row.confirmation;
        return {
          transactionId: data.transaction_id,
          kind: 'credit_card',
          payBy: until,
          card: c?.card ?? null,
          installments: c?.installments ?? 1,
        };
      }
      const kind = row.paymentMethod as PendingPaymentKind;
      // Payment data without its document (never stored so): the checkout's own expiry.
      const payBy =
        kind === 'pix' && data.pix
          ? new Date(data.pix.expires_at)
          : kind === 'boleto' && data.boleto
            ? boletoPayableUntil(data.boleto.due_date)
            : row.expiresAt;
      return { transactionId: data.transaction_id, kind, payBy: payBy.toISOString() };
    },
  } satisfies Partial<CheckoutActivities>;
}
