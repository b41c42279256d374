import type { InvoiceStatus } from '../domain/invoices.ts';
import type { Row } from './plain-sql.ts';
import type { InvoiceRecord } from '../contracts/invoice.ts';

/** The columns to select: dates as text, so they read as the YYYY-MM-DD they were given. */
export const INVOICE_COLUMNS = `id, number, gateway_invoice_id, subscription_id, organization_id, amount, currency,
  description, due_date::text as due_date, expiration_date::text as expiration_date, status, no_fees_installments,
  failure_reason, transaction_id, paid_at, created_at, modified_at, workflow_id`;

const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());

/** The record of a `subscription_invoices` row read with INVOICE_COLUMNS. */
export function invoiceRecord(row: Row): InvoiceRecord {
  return {
    id: row.id as string,
    number: row.number as string,
    gateway_invoice_id: (row.gateway_invoice_id as string | null) ?? null,
    subscription_id: row.subscription_id as string,
    organization_id: row.organization_id as string,
    amount: Number(row.amount),
    currency: row.currency as string,
    description: (row.description as string | null) ?? null,
    due_date: row.due_date as string,
    expiration_date: (row.expiration_date as string | null) ?? null,
    payment_method: 'credit',
    status: row.status as InvoiceStatus,
    no_fees_installments: Boolean(row.no_fees_installments),
    failure_reason: (row.failure_reason as string | null) ?? null,
    transaction_id: (row.transaction_id as string | null) ?? null,
    paid_at: iso(row.paid_at),
    created_at: iso(row.created_at)!,
    modified_at: iso(row.modified_at)!,
    workflow_id: row.workflow_id as string,
  };
}
