import type { ReconciliationLineRow, ReconciliationRow } from '../../db/reconciliation/records.ts';
import { iso } from './common.ts';

/** A reconciliation report as the API answers it and its event carries it (`reconciliation.completed`). */
export function presentReconciliation(row: ReconciliationRow) {
  return {
    id: row.id,
    organization_id: row.organizationId,
    day: String(row.day).slice(0, 10),
    status: row.status,
    ours_total: row.oursTotal,
    theirs_total: row.theirsTotal,
    unmatched_total: row.unmatchedTotal,
    matched_count: row.matchedCount,
    unmatched_count: row.unmatchedCount,
    created_at: iso(row.createdAt)!,
  };
}

export function presentReconciliationLine(line: ReconciliationLineRow) {
  return {
    kind: line.kind,
    gateway_id: line.gatewayId,
    reference: line.reference,
    ours: line.ours,
    theirs: line.theirs,
    difference: line.difference,
    reason: line.reason,
    repair: line.repair,
  };
}
