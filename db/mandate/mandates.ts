import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import type { GatewayMandate, StatusChange } from '../../contracts/pix-automatico.ts';
import { isMandateFinal, laterMandateStatus, type MandateStatus } from '../../domain/pix-automatico.ts';
import { sameJson } from './same-json.ts';
import { kyselyOf, sql, type Database, type Insertable, type Selectable } from '../kysely.ts';

/**
 * The mandate object's repository (decision 0096): the only writer of `mandates`. A mandate is what the
 * gateway last told us of it, its status only moving forward (domain/pix-automatico.ts), so notices
 * handled in any order, or twice, end in the same row.
 */

export type MandateRow = Selectable<Database['mandates']>;

/** The columns a gateway's sight of the mandate sets (all but ours: ids, timestamps, history). */
function columnsOf(gateway: GatewayMandate) {
  return {
    status: gateway.status,
    journey: gateway.journey,
    periodicity: gateway.periodicity,
    retryPolicy: gateway.retryPolicy,
    startDate: gateway.startDate,
    endDate: gateway.endDate,
    fixedAmount: gateway.fixedAmount,
    minimumAmount: gateway.minimumAmount,
    payerMaximum: gateway.payerMaximum,
    objectLabel: gateway.objectLabel,
    debtorName: gateway.debtor.name,
    debtorTaxId: gateway.debtor.taxId,
    // Journey 4's QR code pays the renewal: only its renewal checkout shows it (decision 0100), never our row.
    qrCode: gateway.journey === 'journey_4' ? null : gateway.qrCode,
    request: gateway.request,
    rejectionCode: gateway.rejection?.code ?? null,
    rejectionDescription: gateway.rejection?.description ?? null,
    cancelledBy: gateway.cancellation?.by ?? null,
    cancellationCode: gateway.cancellation?.code ?? null,
    cancellationDescription: gateway.cancellation?.description ?? null,
  };
}

/**
 * Our history after a sight: each status once, when it was first reached (the gateway's time when its
 * history gives one, else `now`), oldest first, none past `status`.
 */
export function mergedHistory<S extends string>(
  ours: readonly StatusChange<S>[],
  theirs: readonly StatusChange<S>[],
  status: S,
  now: Date,
): StatusChange<S>[] {
  const byStatus = new Map<S, string>();
  for (const change of [...ours, ...theirs]) {
    const known = byStatus.get(change.status);
    if (known === undefined || change.at < known) byStatus.set(change.status, change.at);
  }
  if (!byStatus.has(status)) byStatus.set(status, now.toISOString());
  return [...byStatus].map(([s, at]) => ({ status: s, at })).sort((a, b) => a.at.localeCompare(b.at));
}

const reachedAt = (history: readonly StatusChange<MandateStatus>[], status: MandateStatus, now: Date) => {
  const at = history.find((change) => change.status === status)?.at;
  return at === undefined ? now : new Date(at);
};

/** Timestamps a status sets: approved_at once approved, ended_at once final. */
function milestones(
  row: Pick<MandateRow, 'approvedAt' | 'endedAt'> | null,
  status: MandateStatus,
  history: StatusChange<MandateStatus>[],
  now: Date,
) {
  const approved = history.some((change) => change.status === 'approved');
  return {
    approvedAt: row?.approvedAt ?? (approved ? reachedAt(history, 'approved', now) : null),
    endedAt: row?.endedAt ?? (isMandateFinal(status) ? reachedAt(history, status, now) : null),
  };
}

async function lockOfGateway(em: EntityManager, gatewayMandateId: string) {
  return kyselyOf(em)
    .selectFrom('mandates')
    .selectAll()
    .where('gatewayMandateId', '=', gatewayMandateId)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * First sight inserts; later sights update, the status only moving forward (laterMandateStatus): a stale
 * or repeated notice changes nothing. Locks the row. A sight in the row's own status refreshes what may
 * change without one (the payer's maximum, the QR code, the journey).
 */
export async function upsertMandate(
  em: EntityManager,
  m: {
    organizationId: string;
    subscriptionId: string;
    customerId: string;
    currency: string;
    gateway: GatewayMandate;
    /** Our id, when the caller chose it (a mandate's own workflow is named by it); else a new one. */
    id?: string;
  },
  now: Date,
): Promise<{ row: MandateRow; previousStatus: MandateStatus | null }> {
  const db = kyselyOf(em);
  let current = await lockOfGateway(em, m.gateway.id);
  if (!current) {
    const history = mergedHistory([], m.gateway.history, m.gateway.status, now);
    const values: Insertable<Database['mandates']> = {
      id: m.id ?? uuidv7(),
      organizationId: m.organizationId,
      subscriptionId: m.subscriptionId,
      customerId: m.customerId,
      gatewayMandateId: m.gateway.id,
      currency: m.currency,
      ...columnsOf(m.gateway),
      // Set once, from the creation's answer: a later sight of a rec may not name the charge.
      firstPaymentId: m.gateway.journey === 'journey_4' ? m.gateway.firstPaymentId : null,
      history,
      ...milestones(null, m.gateway.status, history, now),
      createdAt: now,
      updatedAt: now,
    };
    const inserted = await db
      .insertInto('mandates')
      .values(values)
      .onConflict((oc) => oc.column('gatewayMandateId').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { row: inserted, previousStatus: null };
    // Another transaction inserted it meanwhile: this sight is a later one.
    current = await lockOfGateway(em, m.gateway.id);
    if (!current) throw new Error(`mandate ${m.gateway.id}: neither inserted nor found`);
  }
  const previousStatus = current.status;
  const status = laterMandateStatus(previousStatus, m.gateway.status);
  if (status !== m.gateway.status) return { row: current, previousStatus }; // stale: the row knows better
  const history = mergedHistory(current.history, m.gateway.history, status, now);
  const change = { ...columnsOf(m.gateway), history, ...milestones(current, status, history, now) };
  if (isUnchanged(current, change)) return { row: current, previousStatus };
  const row = await db
    .updateTable('mandates')
    .set({ ...change, updatedAt: now })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, previousStatus };
}

/** Whether writing `change` would leave the row as it is (a repeated notice). */
const isUnchanged = (row: Record<string, unknown>, change: Record<string, unknown>) =>
  Object.entries(change).every(([key, value]) => sameJson(row[key], value));

/**
 * The subscription's mandate: its approved one, else the one waiting for the payer, else the latest
 * that ended (a subscription may have had several, decision 0098; one at most is live).
 */
export async function mandateOfSubscription(em: EntityManager, subscriptionId: string): Promise<MandateRow | null> {
  const row = await kyselyOf(em)
    .selectFrom('mandates')
    .selectAll()
    .where('subscriptionId', '=', subscriptionId)
    .orderBy(sql`case status when 'approved' then 0 when 'created' then 1 else 2 end`)
    .orderBy('createdAt', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** The subscription's live mandate (created or approved), if it has one. */
export async function liveMandateOfSubscription(em: EntityManager, subscriptionId: string): Promise<MandateRow | null> {
  const row = await kyselyOf(em)
    .selectFrom('mandates')
    .selectAll()
    .where('subscriptionId', '=', subscriptionId)
    .where('status', 'in', ['created', 'approved'])
    .executeTakeFirst();
  return row ?? null;
}

export async function mandateById(em: EntityManager, id: string): Promise<MandateRow | null> {
  const row = await kyselyOf(em).selectFrom('mandates').selectAll().where('id', '=', id).executeTakeFirst();
  return row ?? null;
}

export async function mandateOfGateway(em: EntityManager, gatewayMandateId: string): Promise<MandateRow | null> {
  const row = await kyselyOf(em)
    .selectFrom('mandates')
    .selectAll()
    .where('gatewayMandateId', '=', gatewayMandateId)
    .executeTakeFirst();
  return row ?? null;
}
