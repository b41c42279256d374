import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';
import {
  AWAITING_PAYMENT,
  awaitedPayment,
  confirmationInFlight,
  PAYMENT_IN_FLIGHT,
} from '../db/checkout/lost-run-reads.ts';
import { plainSql, type Row } from '../db/plain-sql.ts';
import { SUBSCRIPTION_SWEEPS, type SweepQuery } from '../db/subscription/sweeps.ts';
import type { ConfirmCheckoutInput, GatewayPaymentData, PendingPaymentKind } from '../domain/checkout.ts';
import { INVOICE_CREATION_WINDOW_MS } from '../domain/invoices.ts';
import { CUSTOMER_ID, ORGANIZATION_ID, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { ensureCheckoutWorkflow, ensureInvoiceWorkflow } from '../temporal/workflow-starts.ts';
import { boletoPayableUntil } from '../gateway/payment-documents.ts';
import type { SweepPage, SweepPageInput } from '../contracts/sweep.ts';
import type { IssuedPendingPayment } from '../contracts/checkout.ts';
import type { SweepActivities } from '../contracts/sweep.ts';
import type { CheckoutActivities } from '../contracts/checkout.ts';

/**
 * Each sweep's rows (db/subscription/sweeps.ts has the subscriptions' and the invoices'). Each `where`
 * is the predicate of a partial index (migration 0016), so a sweep reads only the live rows however
 * many have ended.
 */
export const SWEEP_QUERIES = {
  ...SUBSCRIPTION_SWEEPS,
  checkouts: {
    select: 'id, organization_id, workflow_id, status, expires_at',
    from: 'checkouts',
    where: `(status = 'open' or (${AWAITING_PAYMENT}) or (${PAYMENT_IN_FLIGHT}))`,
    id: 'id',
  },
} satisfies Record<string, SweepQuery>;

/** One page's statement: the rows after the last id of the page before (null: from the first). */
export const sweepPageSql = (q: SweepQuery) =>
  `select ${q.select} from ${q.from} where ${q.where} and (?::uuid is null or ${q.id} > ?::uuid) order by ${q.id} limit ?`;

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
  const db = plainSql(deps.orm);

  /** The worker's client and queues; a worker built without them cannot sweep. */
  function starter(): { temporal: Client; batchQueue: string; interactiveQueue: string } {
    const { temporal, taskQueue, config } = deps;
    if (!temporal || !taskQueue || !config) {
      throw ApplicationFailure.nonRetryable('This worker has no Temporal client for sweeps', 'SweepUnavailable');
    }
    return { temporal, batchQueue: taskQueue, interactiveQueue: config.TEMPORAL_TASK_QUEUE };
  }

  /** One page of `from` in the order of `id` (its id column, selected as `id`), each row handed to `start`. */
  async function sweepPage(
    input: SweepPageInput,
    query: SweepQuery,
    start: (row: Row) => Promise<void>,
  ): Promise<SweepPage> {
    const rows = await db.query(sweepPageSql(query), [input.after, input.after, input.limit]);
    for (const row of rows) await start(row);
    return { checked: rows.length, next: rows.length < input.limit ? null : (rows.at(-1)!.id as string) };
  }

  return {
    /** Live subscriptions: their workflows renew them, on the batch queue. */
    async ensureSubscriptionWorkflows(input: SweepPageInput): Promise<SweepPage> {
      const { temporal, batchQueue } = starter();
      return sweepPage(input, SWEEP_QUERIES.subscriptions, async (row) => {
        const subscriptionId = row.id as string;
        await temporal.workflow.start('subscriptionWorkflow', {
          workflowId: subscriptionWorkflowId(subscriptionId),
          taskQueue: batchQueue,
          args: [{ subscriptionId }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: row.organization_id as string },
            { key: CUSTOMER_ID, value: row.customer_id as string },
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
      return sweepPage(input, SWEEP_QUERIES.invoices, (row) =>
        ensureInvoiceWorkflow(temporal, interactiveQueue, {
          invoiceId: row.id as string,
          organizationId: row.organization_id as string,
          subscriptionId: row.subscription_id as string,
          customerId: row.customer_id as string,
          gatewaySubscriptionId: (row.gateway_subscription_id as string | null) ?? null,
          amount: Number(row.amount),
          currency: row.currency as string,
          description: (row.description as string | null) ?? null,
          dueDate: row.due_date as string,
          expirationDate: (row.expiration_date as string | null) ?? null,
          noFeesInstallments: row.no_fees_installments as boolean,
          answerBy: new Date(new Date(row.created_at as string).getTime() + INVOICE_CREATION_WINDOW_MS).toISOString(),
          // No gateway invoice: a manual one, whose new run charges the kept card (with its key: once).
          ...(row.gateway_invoice_id === null
            ? { billing: 'manual' as const }
            : { gatewayInvoiceId: row.gateway_invoice_id as string }),
        }),
      );
    },

    /** Open checkouts, and confirmed ones waiting for their pix or boleto or for a payment answer a lost run never recorded. */
    async ensureCheckoutWorkflows(input: SweepPageInput): Promise<SweepPage> {
      const { temporal, interactiveQueue } = starter();
      return sweepPage(input, SWEEP_QUERIES.checkouts, (row) =>
        ensureCheckoutWorkflow(temporal, interactiveQueue, {
          id: row.id as string,
          organizationId: row.organization_id as string,
          workflowId: row.workflow_id as string,
          status: row.status as string,
          expiresAt: new Date(row.expires_at as string),
        }),
      );
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
