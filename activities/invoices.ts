import { recurringBillingOf } from '../gateway/capabilities.ts';
import { ApplicationFailure } from '@temporalio/activity';
import { insertEvents, type EventType } from '../db/events.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  findInvoice,
  insertInvoice,
  invoiceRecord,
  writeInvoiceOutcome,
  type InvoiceRow,
} from '../db/invoice/records.ts';
import { takeInvoiceNumber } from '../db/organization/subscription-reads.ts';
import type { Orm } from '../db/orm.ts';
import { findSubscription } from '../db/subscription/rows.ts';
import { insertPaidSale } from '../db/sale/sales.ts';
import { saleRecordIn } from '../use-cases/sale-records.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
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
  return {
    /**
     * Numbers and stores an invoice, with invoice.created: one the gateway created, or a manual one
     * (no gateway invoice). A repeated call returns the record.
     */
    async recordInvoice(
      input: InvoiceRequest & { gatewayInvoiceId: string | null; at: string },
    ): Promise<InvoiceRecord> {
      return orm.em.fork().transactional(async (tx) => {
        const known = await findInvoice(tx, input.invoiceId);
        if (known) return invoiceRecord(known);
        const record = invoiceRecord(await numberedInvoice(tx, input));
        await insertEvents(tx, input.organizationId, [['invoice.created', { ...record }]]);
        return record;
      });
    },

    /**
     * The invoice's outcome, once, in one transaction: paid records the transaction and a sale of the
     * subscription's product (like a renewal); failed records the refused transaction and its reason.
     * Each writes its event. An invoice settled already is answered as it is.
     */
    async settleInvoice(input: InvoiceSettlement): Promise<InvoiceRecord> {
      return orm.em.fork().transactional(async (tx) => {
        const invoice = await findInvoice(tx, input.invoiceId, { lock: true });
        if (!invoice) throw ApplicationFailure.nonRetryable(`Invoice ${input.invoiceId} not found`, 'InvoiceNotFound');
        if (invoice.status !== 'pending') return invoiceRecord(invoice);
        const org = invoice.organizationId;
        const at = new Date(input.at);
        const transactionId = input.payment
          ? await upsertTransaction(tx, { organizationId: org, checkoutId: null }, input.payment)
          : null;
        const sale = input.status === 'paid' && transactionId ? await insertSale(tx, invoice, transactionId, at) : null;
        const failureReason =
          input.status === 'failed' ? (input.payment?.declineReason ?? input.failureReason ?? 'charge_failed') : null;
        const record = invoiceRecord(
          await writeInvoiceOutcome(tx, input.invoiceId, {
            status: input.status,
            failureReason,
            transactionId,
            paidAt: input.paidAt ? new Date(input.paidAt) : null,
            modifiedAt: at,
          }),
        );
        const events: [EventType, Record<string, unknown>][] = [[`invoice.${input.status}`, { ...record }]];
        if (sale) events.push(['sale.created', sale], ['sale.paid', sale]);
        await insertEvents(tx, org, events);
        return record;
      });
    },
  } satisfies Partial<InvoiceActivities>;
}

/** The invoice's row, numbered in the organization's sequence (taken in this transaction). */
async function numberedInvoice(
  tx: EntityManager,
  input: InvoiceRequest & { gatewayInvoiceId: string | null; at: string },
): Promise<InvoiceRow> {
  const { prefix, n } = await takeInvoiceNumber(tx, input.organizationId);
  const at = new Date(input.at);
  return insertInvoice(tx, {
    id: input.invoiceId,
    organizationId: input.organizationId,
    subscriptionId: input.subscriptionId,
    number: invoiceNumber(prefix, n),
    gatewayInvoiceId: input.gatewayInvoiceId,
    amount: input.amount,
    currency: input.currency,
    description: input.description,
    dueDate: input.dueDate,
    expirationDate: input.expirationDate,
    paymentMethod: 'credit',
    status: 'pending',
    noFeesInstallments: input.noFeesInstallments,
    workflowId: invoiceWorkflowId(input.invoiceId),
    createdAt: at,
    modifiedAt: at,
  });
}

/** The sale of a paid invoice: the subscription's customer, product and price, for the invoice's amount. */
async function insertSale(
  tx: EntityManager,
  invoice: InvoiceRow,
  transactionId: string,
  at: Date,
): Promise<Record<string, unknown>> {
  const s = await findSubscription(tx, invoice.subscriptionId);
  if (!s) throw new Error(`Subscription ${invoice.subscriptionId} not found`);
  const id = await insertPaidSale(tx, {
    organizationId: s.organizationId,
    checkoutId: null,
    transactionId,
    customerId: s.customerId,
    productId: s.productId,
    priceId: s.priceId,
    subscriptionId: invoice.subscriptionId,
    invoiceId: invoice.id,
    discountId: null,
    currency: invoice.currency,
    subtotalAmount: invoice.amount,
    discountAmount: 0,
    amount: invoice.amount,
    installments: 1,
    paymentMethod: 'credit_card',
    at,
  });
  // The one event field beyond the record: the invoice it pays.
  return { ...(await saleRecordIn(tx, id)), invoice_id: invoice.id };
}
