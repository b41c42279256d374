import { z } from 'zod';
import { invoiceRecord, type InvoiceRow } from '../../db/invoice/records.ts';
import { DEFAULT_EXPIRATION_DAYS, INVOICE_STATUSES } from '../../domain/invoices.ts';
import { listQuery, nonBlank, paginated } from '../../use-cases/schemas/common.ts';
import type { Assert, Same } from './record-checks.ts';
import type { InvoiceRecord } from '../../contracts/invoice.ts';

const timestamp = z.string();
/** A calendar date (JSON Schema `format: date`): a day that does not exist is a 400. */
const date = z.iso.date();

/** The spec's body; an unknown field is a 400, like every strict body of this API. */
export const createInvoiceBody = z.strictObject({
  amount: z.number().int().min(1).describe('Cents, positive'),
  due_date: date.describe('YYYY-MM-DD; today or later, in Brazil (UTC−3)'),
  description: nonBlank(255).optional().describe('Shown to the customer'),
  expiration_date: date
    .nullable()
    .optional()
    .describe(
      `YYYY-MM-DD, not before due_date: the last day it can be paid (default: ${DEFAULT_EXPIRATION_DAYS} days ` +
        'after due_date); unpaid by then, it is voided',
    ),
  no_fees_installments: z.boolean().default(false).describe('Installment options computed without interest'),
});
export type CreateInvoiceBody = z.infer<typeof createInvoiceBody>;

/**
 * The spec's Subscription invoice record, plus its number, why it failed, its transaction and its
 * workflow: the record its events carry. The API's answers add the workflow's link (invoiceSchema).
 */
export const invoiceRecordSchema = z.object({
  id: z.string(),
  number: z.string().describe("`<customer_invoice_prefix>-<n>`, the organization's next invoice number"),
  gateway_invoice_id: z
    .string()
    .nullable()
    .describe(
      "The gateway's invoice; null for a manually billed subscription's invoice, which this engine charges " +
        'to the kept card itself',
    ),
  subscription_id: z.string(),
  organization_id: z.string(),
  amount: z.number().int().describe('Cents'),
  currency: z.string().describe('Upper case (BRL)'),
  description: z.string().nullable(),
  due_date: z.string().describe('YYYY-MM-DD'),
  expiration_date: z.string().nullable().describe('YYYY-MM-DD'),
  payment_method: z.literal('credit').describe('Charged to the subscription’s card'),
  status: z
    .enum(INVOICE_STATUSES)
    .describe(
      'pending until its card is charged (paid) or the charge is refused (failed); voided when unpaid at its ' +
        'deadline, or when its subscription ends first',
    ),
  no_fees_installments: z.boolean(),
  failure_reason: z.string().nullable().describe("The gateway's decline reason when failed"),
  transaction_id: z.string().nullable().describe('Our transaction record of the charge, once one was made'),
  paid_at: timestamp.nullable(),
  created_at: timestamp,
  modified_at: timestamp,
  workflow_id: z.string().describe('invoice:<id>, the Temporal workflow that runs it'),
});
/** The schema and the record the entity's row presents (db/invoice/records.ts) say the same fields. */
export type InvoiceRecordMatchesSchema = Assert<Same<z.infer<typeof invoiceRecordSchema>, InvoiceRecord>>;
export const invoiceSchema = invoiceRecordSchema.extend({
  workflow_url: z.string().describe('That workflow in the Temporal UI (the API’s address of it; events leave it out)'),
});
export type InvoiceBody = z.infer<typeof invoiceSchema>;

export const listInvoicesQuery = listQuery(['created_at', 'due_date', 'amount']).extend({
  status: z.enum(INVOICE_STATUSES).optional(),
});
export const invoicePage = paginated(invoiceSchema);
export const invoiceParams = z.object({ id: z.string().max(64), invoice_id: z.string().max(64) });

export function presentInvoice(i: InvoiceRow, workflowUrl: string): InvoiceBody {
  return { ...invoiceRecord(i), workflow_url: workflowUrl };
}
