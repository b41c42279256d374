import { defineEntity, p } from '@mikro-orm/core';

/** A day's report of our books against the gateway's ledger (migration 0031, decision 0073). */
export const Reconciliation = defineEntity({
  name: 'Reconciliation',
  tableName: 'reconciliations',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    /** The UTC day reconciled. */
    day: p.date(),
    /** `balanced`: every line matched or differs for an expected reason (a fee); `drift`: some other reason. */
    status: p.enum(['balanced', 'drift'] as const),
    oursTotal: p.bigint('number'),
    theirsTotal: p.bigint('number'),
    unmatchedTotal: p.bigint('number'),
    matchedCount: p.integer(),
    unmatchedCount: p.integer(),
    /** The workflow run's key for this organization's report: a retried write finds it. */
    reportKey: p.string().unique(),
    createdAt: p.datetime(),
  },
});

/** One payment's kind on a report: both sides' cents and, when they differ, why. */
export const ReconciliationLine = defineEntity({
  name: 'ReconciliationLine',
  tableName: 'reconciliation_lines',
  properties: {
    id: p.uuid().primary(),
    reconciliationId: p.uuid(),
    position: p.integer(),
    kind: p.string(),
    gatewayId: p.string().nullable(),
    reference: p.string().nullable(),
    ours: p.bigint('number'),
    theirs: p.bigint('number'),
    difference: p.bigint('number'),
    reason: p.string().nullable(),
    /** What self-repair did of a `missing_in_books` line: `started` (a notice's path was started), or null. */
    repair: p.string().nullable(),
  },
});
