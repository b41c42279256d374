import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import { repairOf, reportStatus, type ReconciliationResult } from '../../domain/reconciliation.ts';
import { kyselyOf, type Database, type Selectable } from '../kysely.ts';

/** The reconciliation reports and their lines (decision 0073): their only writer and reader. */

export type ReconciliationRow = Selectable<Database['reconciliations']>;
export type ReconciliationLineRow = Selectable<Database['reconciliation_lines']>;

export const findReportByKey = async (em: EntityManager, reportKey: string) =>
  (await kyselyOf(em)
    .selectFrom('reconciliations')
    .selectAll()
    .where('reportKey', '=', reportKey)
    .executeTakeFirst()) ?? null;

/** The report and its lines, as `result` has them; the caller's transaction also records its event. */
export async function insertReport(
  em: EntityManager,
  report: { organizationId: string; day: string; reportKey: string; result: ReconciliationResult },
  now: Date,
): Promise<ReconciliationRow> {
  const { result } = report;
  const row = await kyselyOf(em)
    .insertInto('reconciliations')
    .values({
      id: uuidv7(),
      organizationId: report.organizationId,
      day: report.day,
      status: reportStatus(result),
      oursTotal: result.oursTotal,
      theirsTotal: result.theirsTotal,
      unmatchedTotal: result.unmatchedTotal,
      matchedCount: result.matchedCount,
      unmatchedCount: result.unmatchedCount,
      reportKey: report.reportKey,
      createdAt: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (result.lines.length > 0) {
    await kyselyOf(em)
      .insertInto('reconciliation_lines')
      .values(
        result.lines.map((line, position) => ({
          id: uuidv7(),
          reconciliationId: row.id,
          position,
          kind: line.kind,
          gatewayId: line.gatewayId,
          reference: line.reference,
          ours: line.ours,
          theirs: line.theirs,
          difference: line.difference,
          reason: line.reason,
          repair: repairOf(line),
        })),
      )
      .execute();
  }
  return row;
}

export const findReport = async (em: EntityManager, organizationId: string, id: string) =>
  (await kyselyOf(em)
    .selectFrom('reconciliations')
    .selectAll()
    .where('organizationId', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()) ?? null;

export const linesOf = (em: EntityManager, reconciliationId: string) =>
  kyselyOf(em)
    .selectFrom('reconciliation_lines')
    .selectAll()
    .where('reconciliationId', '=', reconciliationId)
    .orderBy('position')
    .execute();

export interface ReportFilter {
  organizationId: string;
  day?: string;
  status?: 'balanced' | 'drift';
}

/** A page of an organization's reports by day (desc: newest first, the newest run of a day first), and how many. */
export async function listReports(
  em: EntityManager,
  filter: ReportFilter,
  page: { limit: number; offset: number; direction: 'asc' | 'desc' },
) {
  let where = kyselyOf(em).selectFrom('reconciliations').where('organizationId', '=', filter.organizationId);
  if (filter.day !== undefined) where = where.where('day', '=', filter.day);
  if (filter.status !== undefined) where = where.where('status', '=', filter.status);
  const [rows, count] = await Promise.all([
    where
      .selectAll()
      .orderBy('day', page.direction)
      .orderBy('id', page.direction)
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    where.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** How many unmatched lines each report has per reason: report id → reason → count. */
export async function reasonCountsOf(em: EntityManager, reconciliationIds: string[]) {
  const counts = new Map<string, Record<string, number>>(reconciliationIds.map((id) => [id, {}]));
  if (reconciliationIds.length === 0) return counts;
  const rows = await kyselyOf(em)
    .selectFrom('reconciliation_lines')
    .select((eb) => ['reconciliationId', 'reason', eb.fn.countAll<string>().as('n')])
    .where('reconciliationId', 'in', reconciliationIds)
    .where('reason', 'is not', null)
    .groupBy(['reconciliationId', 'reason'])
    .orderBy('reason')
    .execute();
  for (const row of rows) counts.get(row.reconciliationId)![row.reason!] = Number(row.n);
  return counts;
}
