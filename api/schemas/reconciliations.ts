import { z } from 'zod';
import { LINE_REPAIRS, RECONCILIATION_REASONS, type ReconciliationReason } from '../../domain/reconciliation.ts';
import { listQuery, paginated, validationErrors } from '../../use-cases/schemas/common.ts';

/** A reconciliation report as its event carries it (`reconciliation.completed`, decision 0073). */
export const reconciliationSchema = z.object({
  id: z.string().describe("The report's id"),
  organization_id: z.string(),
  day: z.string().describe('The UTC day reconciled, YYYY-MM-DD'),
  status: z
    .enum(['balanced', 'drift'])
    .describe('balanced: every line matched or differs by a fee, instalment timing or withholding; drift otherwise'),
  ours_total: z.number().int().describe('Cents our books moved that day (payments less refunds)'),
  theirs_total: z.number().int().describe("Cents the gateway's ledger moved for them, payouts aside"),
  unmatched_total: z.number().int().describe('ours_total − theirs_total, as the reasons of the unmatched lines sum it'),
  matched_count: z.number().int().describe('Lines whose sides agree'),
  unmatched_count: z.number().int().describe('Lines whose sides differ, each with a reason'),
  created_at: z.string().describe('When the report was written'),
});

const REASONS = [...RECONCILIATION_REASONS] as [ReconciliationReason, ...ReconciliationReason[]];

export const reconciliationReason = z
  .enum(REASONS)
  .describe(
    'Why a line does not match: missing_in_books (the gateway has it, our books do not), missing_at_gateway, ' +
      'amount_mismatch, status_mismatch, installment_timing, release_timing (captured on one day, released to ' +
      "the balance on another: the gateway's ledger is by release), partial_refund, fee, dispute, withholding. " +
      'fee, installment_timing, release_timing and withholding are expected; any other makes the report drift',
  );

export const reconciliationLineSchema = z.object({
  kind: z.enum(['payment', 'refund', 'fee', 'dispute', 'withholding']).describe('What moved'),
  gateway_id: z.string().nullable().describe("The gateway's id of the payment the line is about"),
  reference: z.string().nullable().describe('Our reference of that payment (its checkout), when known'),
  ours: z.number().int().describe('Cents our books hold for it (refunds negative)'),
  theirs: z.number().int().describe("Cents the gateway's ledger holds for it (refunds and fees negative)"),
  difference: z.number().int().describe('ours − theirs; 0 on a matched line'),
  reason: reconciliationReason.nullable().describe('Why the sides differ; null on a matched line'),
  repair: z
    .enum(LINE_REPAIRS)
    .nullable()
    .describe(
      'How the run repaired a line missing in our books: gateway_refunds, a refund made at the gateway recorded ' +
        'by the path its missed notice starts; payment_notice, a payment the gateway took applied to its owner ' +
        '(checkout, invoice or direct transaction) as its missed notice would have',
    ),
});

const reasonCounts = z
  .record(z.string(), z.number().int())
  .describe('How many unmatched lines the report has per reason, e.g. {"fee": 2, "missing_in_books": 1}');

/** A report in a list: its totals and its unmatched lines counted per reason. */
export const reconciliationListItem = reconciliationSchema.extend({ reason_counts: reasonCounts });
export const reconciliationPage = paginated(reconciliationListItem);

/** A report with its lines, in the order the report wrote them (payment by payment). */
export const reconciliationDetail = reconciliationListItem.extend({ lines: z.array(reconciliationLineSchema) });

export const reconciliationParams = z.object({ id: z.string().max(64) });

const day = z.iso.date().describe('A UTC day, YYYY-MM-DD');

export const listReconciliationsQuery = listQuery(['day']).extend({
  day: day.optional().describe('Only the reports of this UTC day'),
  status: z.enum(['balanced', 'drift']).optional(),
});

export const createReconciliationBody = z
  .object({ day: day.describe('The UTC day to reconcile, YYYY-MM-DD: today at the latest') })
  .strict();

export const reconciliationPending = z
  .object({
    status: z.literal('running'),
    day: z.string().describe('The UTC day being reconciled'),
    run_id: z.string().describe("The run's id; its report will be listed under GET /reconciliations?day=<day>"),
    detail: z.string(),
  })
  .describe("Still waiting for the gateway's ledger: the run goes on; its report is listed once written");

export const reconciliationValidationErrors = validationErrors({
  day_in_future: 'day is later than today (UTC)',
});

/** The CSV download's columns, in order. */
export const CSV_COLUMNS = ['kind', 'gateway_id', 'reference', 'ours', 'theirs', 'difference', 'reason', 'repair'];

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. A text cell that a
 * spreadsheet would run as a formula (= + - @ tab CR first) is kept as text with a leading quote.
 */
function cell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The lines as CSV: a header row, then one row per line; cents as integers. */
export function linesCsv(lines: z.infer<typeof reconciliationLineSchema>[]): string {
  const rows = lines.map((l) =>
    [l.kind, l.gateway_id, l.reference, l.ours, l.theirs, l.difference, l.reason, l.repair].map(cell).join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].map((row) => `${row}\r\n`).join('');
}
