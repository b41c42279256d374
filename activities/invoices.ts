import { recurringBillingOf } from '../gateway/capabilities.ts';
import { ApplicationFailure } from '@temporalio/activity';
import { insertEvents, type EventType } from '../db/events.ts';
import { INVOICE_COLUMNS, invoiceRecord } from '../db/invoice-records.ts';
import type { Orm } from '../db/orm.ts';
import { executorOf, plainSql, type Row, type Sql } from '../db/plain-sql.ts';
import { insertPaidSale } from '../db/sales.ts';
import { saleRecord } from '../use-cases/sale-records.ts';
import { upsertTransaction } from '../db/transactions.ts';
import { GATEWAY_ERROR, GATEWAY_REFUSAL } from '../domain/failures.ts';
import { invoiceCreationKey, invoiceNumber, invoiceVoidKey, invoiceWorkflowId } from '../domain/invoices.ts';
import type { GatewayInvoice, PaymentGateway } from '../gateway/port.ts';
import { summarize } from './checkout-payments.ts';
import { callGateway } from './gateway-failures.ts';
import { createInvoiceChargeActivities } from './invoice-charges.ts';
import type { InvoiceRecord } from '../contracts/invoice.ts';
import type { GatewayInvoiceState, InvoiceRequest, InvoiceSettlement } from '../contracts/invoice.ts';
import type { InvoiceActivities } from '../contracts/invoice.ts';

/**
 * The steps of an extra-charge invoice, run by its workflow (workflows/invoice.ts). Gateway calls are
 * keyed by the invoice id, so a retry returns what the gateway did the first time; every write is
 * idempotent (an invoice recorded or settled already changes nothing). Instants come from the
 * workflow (`at`), never from this machine's clock.
 */

export function createInvoiceActivities(deps: { orm: Orm; gateway: PaymentGateway }) {
  return {
    ...gatewayInvoiceActivities(deps.gateway),
    ...invoiceRecordActivities(deps.orm),
    ...createInvoiceChargeActivities(deps),
  };
}

/** The invoice at the gateway: created, then read or voided with the payment it names. */
function gatewayInvoiceActivities(gateway: PaymentGateway) {
  async function withPayment(invoice: GatewayInvoice): Promise<GatewayInvoiceState> {
    if (!invoice.transactionId) return { invoice, payment: null };
    const t = await callGateway(() => gateway.getTransaction(invoice.transactionId!));
    // The invoice names a charge its gateway cannot show yet: asked again on the next try.
    if (!t)
      throw ApplicationFailure.create({
        message: `No gateway transaction ${invoice.transactionId}`,
        type: GATEWAY_ERROR,
      });
    return { invoice, payment: summarize(t) };
  }

  return {
    /** Creates the invoice at the gateway; the key makes a repeated call answer the invoice the first one made. */
    async createGatewayInvoice(input: InvoiceRequest): Promise<GatewayInvoice> {
      const subscriptionId = input.gatewaySubscriptionId;
      if (!subscriptionId) {
        throw ApplicationFailure.nonRetryable(
          'The subscription has no gateway subscription to invoice',
          GATEWAY_REFUSAL,
        );
      }
      return callGateway(() =>
        recurringBillingOf(gateway).createInvoice(
          {
            subscriptionId,
            amount: input.amount,
            currency: input.currency,
            description: input.description,
            dueDate: input.dueDate,
            expirationDate: input.expirationDate,
            noFeesInstallments: input.noFeesInstallments,
          },
          invoiceCreationKey(input.invoiceId),
        ),
      );
    },

    /** The gateway's invoice as it stands now (the source of truth: a callback is only a hint). */
    async readGatewayInvoice(gatewayInvoiceId: string): Promise<GatewayInvoiceState> {
      const invoice = await callGateway(() => recurringBillingOf(gateway).getInvoice(gatewayInvoiceId));
      if (!invoice)
        throw ApplicationFailure.create({ message: `No gateway invoice ${gatewayInvoiceId}`, type: GATEWAY_ERROR });
      return withPayment(invoice);
    },

    /** Voids the invoice at the gateway, so it can no longer be paid; one paid meanwhile is answered as paid. */
    async voidGatewayInvoice(input: { invoiceId: string; gatewayInvoiceId: string }): Promise<GatewayInvoiceState> {
      const key = invoiceVoidKey(input.invoiceId);
      const voided = await callGateway(() =>
        recurringBillingOf(gateway).cancelInvoice(input.gatewayInvoiceId, key),
      ).catch(async (err: unknown) => {
        // The gateway refuses to void a paid invoice: its books say what happened.
        const refused = err instanceof ApplicationFailure && err.type === GATEWAY_REFUSAL;
        const current = refused
          ? await callGateway(() => recurringBillingOf(gateway).getInvoice(input.gatewayInvoiceId))
          : null;
        if (current?.status !== 'paid') throw err;
        return current;
      });
      return withPayment(voided);
    },
  } satisfies Partial<InvoiceActivities>;
}

/** The invoice in our books: numbered and stored, then settled with its sale. */
function invoiceRecordActivities(orm: Orm) {
  const db = plainSql(orm);

  return {
    /**
     * Numbers and stores an invoice, with invoice.created: one the gateway created, or a manual one
     * (no gateway invoice). A repeated call returns the record.
     */
    async recordInvoice(
      input: InvoiceRequest & { gatewayInvoiceId: string | null; at: string },
    ): Promise<InvoiceRecord> {
      return db.transaction(async (sql) => {
        const [known] = await sql(`select ${INVOICE_COLUMNS} from subscription_invoices where id = ?`, [
          input.invoiceId,
        ]);
        if (known) return invoiceRecord(known);
        const row = await insertInvoice(sql, input);
        const record = invoiceRecord(row);
        await insertEvents(executorOf(sql), input.organizationId, [['invoice.created', { ...record }]]);
        return record;
      });
    },

    /**
     * The invoice's outcome, once, in one transaction: paid records the transaction and a sale of the
     * subscription's product (like a renewal); failed records the refused transaction and its reason.
     * Each writes its event. An invoice settled already is answered as it is.
     */
    async settleInvoice(input: InvoiceSettlement): Promise<InvoiceRecord> {
      return db.transaction(async (sql) => {
        const tx = executorOf(sql);
        const [row] = await sql(`select ${INVOICE_COLUMNS} from subscription_invoices where id = ? for update`, [
          input.invoiceId,
        ]);
        if (!row) throw ApplicationFailure.nonRetryable(`Invoice ${input.invoiceId} not found`, 'InvoiceNotFound');
        if (row.status !== 'pending') return invoiceRecord(row);
        const org = row.organization_id as string;
        const at = new Date(input.at);
        const transactionId = input.payment
          ? await upsertTransaction(tx, { organizationId: org, checkoutId: null }, input.payment)
          : null;
        const sale = input.status === 'paid' && transactionId ? await insertSale(tx, row, transactionId, at) : null;
        const failureReason =
          input.status === 'failed' ? (input.payment?.declineReason ?? input.failureReason ?? 'charge_failed') : null;
        const [updated] = await sql(
          `update subscription_invoices set status = ?, failure_reason = ?, transaction_id = ?, paid_at = ?, modified_at = ?
           where id = ? returning ${INVOICE_COLUMNS}`,
          [
            input.status,
            failureReason,
            transactionId,
            input.paidAt ? new Date(input.paidAt) : null,
            at,
            input.invoiceId,
          ],
        );
        const record = invoiceRecord(updated!);
        const events: [EventType, Record<string, unknown>][] = [[`invoice.${input.status}`, { ...record }]];
        if (sale) events.push(['sale.created', sale], ['sale.paid', sale]);
        await insertEvents(tx, org, events);
        return record;
      });
    },
  } satisfies Partial<InvoiceActivities>;
}

/** The invoice's row, numbered in the organization's sequence. */
async function insertInvoice(
  sql: Sql,
  input: InvoiceRequest & { gatewayInvoiceId: string | null; at: string },
): Promise<Row> {
  // Taken in the insert's transaction, under the organization's row lock: a number is never given
  // twice, and one given is never lost (a rollback gives it back).
  const [org] = await sql(
    `update organizations set customer_invoice_next_number = customer_invoice_next_number + 1 where id = ?
     returning customer_invoice_prefix as prefix, customer_invoice_next_number - 1 as n`,
    [input.organizationId],
  );
  const at = new Date(input.at);
  const [row] = await sql(
    `insert into subscription_invoices (id, organization_id, subscription_id, number, gateway_invoice_id, amount,
       currency, description, due_date, expiration_date, status, no_fees_installments, workflow_id, created_at,
       modified_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?) returning ${INVOICE_COLUMNS}`,
    [
      input.invoiceId,
      input.organizationId,
      input.subscriptionId,
      invoiceNumber(org!.prefix as string, Number(org!.n)),
      input.gatewayInvoiceId,
      input.amount,
      input.currency,
      input.description,
      input.dueDate,
      input.expirationDate,
      input.noFeesInstallments,
      invoiceWorkflowId(input.invoiceId),
      at,
      at,
    ],
  );
  return row!;
}

/** The sale of a paid invoice: the subscription's customer, product and price, for the invoice's amount. */
async function insertSale(
  tx: ReturnType<typeof executorOf>,
  invoice: Row,
  transactionId: string,
  at: Date,
): Promise<Record<string, unknown>> {
  const [s] = await tx.execute<Row[]>(
    'select organization_id, customer_id, product_id, price_id from subscriptions where id = ?',
    [invoice.subscription_id],
  );
  const amount = Number(invoice.amount);
  const sale = {
    transactionId,
    customerId: s!.customer_id as string,
    productId: s!.product_id as string,
    priceId: s!.price_id as string,
    subscriptionId: invoice.subscription_id as string,
    invoiceId: invoice.id as string,
    currency: invoice.currency as string,
    subtotalAmount: amount,
    discountAmount: 0,
    amount,
    installments: 1,
    paymentMethod: 'credit_card',
  };
  const id = await insertPaidSale(tx, {
    ...sale,
    organizationId: s!.organization_id as string,
    checkoutId: null,
    discountId: null,
    at,
  });
  // The one event field beyond the record: the invoice it pays.
  return { ...(await saleRecord(tx, id)), invoice_id: sale.invoiceId };
}
