import { z } from 'zod';

/** A reconciliation report as its event carries it (`reconciliation.completed`, decision 0073). */
export const reconciliationSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  day: z.string().describe('The UTC day reconciled, YYYY-MM-DD'),
  status: z
    .enum(['balanced', 'drift'])
    .describe('balanced: every line matched or differs by a fee, instalment timing or withholding; drift otherwise'),
  ours_total: z.number().int().describe('Cents our books moved that day (payments less refunds)'),
  theirs_total: z.number().int().describe("Cents the gateway's ledger moved for them, payouts aside"),
  unmatched_total: z.number().int().describe('ours_total − theirs_total, as the reasons of the unmatched lines sum it'),
  matched_count: z.number().int(),
  unmatched_count: z.number().int(),
  created_at: z.string(),
});
