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

/** A page of an organization's reports, newest day first, and how many there are. */
export async function listReports(em: EntityManager, organizationId: string, page: { limit: number; offset: number }) {
  const where = kyselyOf(em).selectFrom('reconciliations').where('organizationId', '=', organizationId);
  const [rows, count] = await Promise.all([
    where.selectAll().orderBy('day', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    where.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
