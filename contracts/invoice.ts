import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PaymentSummary } from '../domain/checkout.ts';
import type { InvoiceBilling, InvoiceStatus } from '../domain/invoices.ts';
import type { GatewayInvoice } from './gateway-records.ts';

/**
 * What the workflow of an extra-charge invoice (workflows/invoice.ts) is called by and calls: its id,
 * input and outcome, its Update, signal and query, and the activities it runs (InvoiceActivities).
 */

export { invoiceWorkflowId } from '../domain/invoices.ts';
export type { GatewayInvoice };

export interface InvoiceWorkflowInput extends InvoiceRequest {
  /**
   * Until when the request waits for the creation (ISO). A gateway that has not created the invoice
   * by then leaves nothing behind: the request was told so, and a late creation is voided.
   */
  answerBy: string;
  /**
   * Set when the invoice was created and stored already, by a run that is gone (the sweep starts the
   * workflow of a pending invoice again): this run settles it, asking the gateway at once, since a
   * callback may have come while no run was there to hear it.
   */
  gatewayInvoiceId?: string;
  /**
   * `manual`: the engine charges the subscription's kept card on the due date, and no gateway invoice
   * is made. Absent, the gateway invoices.
   */
  billing?: InvoiceBilling;
}

/** How a run ended: the invoice's last status, or never recorded (refused by the gateway, or abandoned). */
export type InvoiceOutcome = InvoiceStatus | 'refused' | 'abandoned';

/** Answers with the invoice once the gateway created it and it is stored; throws the refusal otherwise. */
export const invoiceCreationUpdate = defineUpdate<InvoiceRecord>('invoiceCreation');
/** The gateway said the invoice changed (a hint: the gateway is asked before anything is decided). */
export const invoiceNoticeSignal = defineSignal<[{ status: string }]>('invoiceNotice');
/** The subscription ended: a pending invoice is voided at the gateway at once (a paid one stays paid). */
export const invoiceVoidSignal = defineSignal('invoiceVoid');
export const invoiceStateQuery = defineQuery<{ status: InvoiceOutcome | 'creating'; gatewayInvoiceId: string | null }>(
  'invoiceState',
);

/** What the merchant asked for, checked by the API, and the invoice's id. */
export interface InvoiceRequest {
  invoiceId: string;
  organizationId: string;
  subscriptionId: string;
  customerId: string;
  /** The subscription the gateway invoices; null for a manual subscription's invoice. */
  gatewaySubscriptionId: string | null;
  amount: number;
  currency: string;
  description: string | null;
  dueDate: string;
  expirationDate: string | null;
  noFeesInstallments: boolean;
}

/** The gateway's invoice as the workflow decides on it, with the charge it made, if any. */
export interface GatewayInvoiceState {
  invoice: GatewayInvoice;
  payment: PaymentSummary | null;
}

export interface InvoiceSettlement {
  invoiceId: string;
  status: Exclude<InvoiceStatus, 'pending'>;
  payment: PaymentSummary | null;
  /** The gateway's time of payment. */
  paidAt: string | null;
  /** Why it failed when no charge was made to say it (the gateway refused the call itself). */
  failureReason?: string;
  at: string;
}

/** A manual invoice's charge of the kept card: what it charges, and which invoice keys it. */
export interface InvoiceCardCharge {
  invoiceId: string;
  subscriptionId: string;
  amount: number;
  description: string | null;
}

/**
 * The charge's answer: the payment (a decline included), or why it was not made: the subscription
 * can no longer be charged (it ended), so nothing was.
 */
export type InvoiceCardChargeAnswer = { payment: PaymentSummary } | { notCharged: string };

/**
 * An extra-charge invoice as its events carry it and as its workflow's Update answers: the API's
 * record (api/schemas/invoices.ts) but for workflow_url, which only the API knows how to build.
 */
export interface InvoiceRecord {
  id: string;
  number: string;
  /** Null when the engine charges the kept card itself (a manual subscription's invoice). */
  gateway_invoice_id: string | null;
  subscription_id: string;
  organization_id: string;
  amount: number;
  currency: string;
  description: string | null;
  due_date: string;
  expiration_date: string | null;
  payment_method: 'credit';
  status: InvoiceStatus;
  no_fees_installments: boolean;
  failure_reason: string | null;
  transaction_id: string | null;
  paid_at: string | null;
  created_at: string;
  modified_at: string;
  workflow_id: string;
}

/** The invoice workflow as its starters see it (the API's creation, the sweep). */
export type InvoiceWorkflow = (input: InvoiceWorkflowInput) => Promise<InvoiceOutcome>;

/** The activities the invoice workflow runs (activities/invoices.ts). */
export interface InvoiceActivities {
  createGatewayInvoice(input: InvoiceRequest): Promise<GatewayInvoice>;
  recordInvoice(input: InvoiceRequest & { gatewayInvoiceId: string | null; at: string }): Promise<InvoiceRecord>;
  readGatewayInvoice(gatewayInvoiceId: string): Promise<GatewayInvoiceState>;
  voidGatewayInvoice(input: { invoiceId: string; gatewayInvoiceId: string }): Promise<GatewayInvoiceState>;
  settleInvoice(input: InvoiceSettlement): Promise<InvoiceRecord>;
  chargeInvoiceCard(input: InvoiceCardCharge): Promise<InvoiceCardChargeAnswer>;
  findInvoiceCharge(invoiceId: string): Promise<PaymentSummary | null>;
}
