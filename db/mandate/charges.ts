import type { EntityManager } from '@mikro-orm/postgresql';
import { uuidv7 } from 'uuidv7';
import type { GatewayMandateAttempt, GatewayMandateCharge } from '../../contracts/pix-automatico.ts';
import {
  attemptFailureReason,
  laterChargeStatus,
  MAX_RETRIES,
  type MandateAttemptStatus,
  type MandateChargeStatus,
} from '../../domain/pix-automatico.ts';
import { sameJson } from './same-json.ts';
import { kyselyOf, type Database, type Selectable } from '../kysely.ts';

/**
 * The mandate object's cycle charges (decision 0096): the only writer of `mandate_charges`. One per
 * mandate and period, keyed by our reference; its status only moves forward, and its attempts are the
 * gateway's list merged with ours, so that each failed attempt is reported once, whatever the order.
 */

export type MandateChargeRow = Selectable<Database['mandate_charges']>;

const ATTEMPT_RANK: Record<MandateAttemptStatus, number> = {
  requested: 0,
  scheduled: 1,
  paid: 2,
  cancelled: 2,
  rejected: 2,
  expired: 2,
};

const hasFailed = (attempt: GatewayMandateAttempt) => attempt.status === 'rejected' || attempt.status === 'expired';

/**
 * Ours and the gateway's attempts, one per end-to-end id, each the later sight of it (an attempt's
 * status only moves forward too), in settlement order.
 */
export function mergedAttempts(
  ours: readonly GatewayMandateAttempt[],
  theirs: readonly GatewayMandateAttempt[],
): GatewayMandateAttempt[] {
  const byId = new Map<string, GatewayMandateAttempt>();
  for (const attempt of [...ours, ...theirs]) {
    const known = byId.get(attempt.endToEndId);
    if (!known || ATTEMPT_RANK[attempt.status] > ATTEMPT_RANK[known.status]) byId.set(attempt.endToEndId, attempt);
  }
  return [...byId.values()].sort((a, b) => a.settlementDate.localeCompare(b.settlementDate));
}

/** The last failed attempt's reason (its code, or `insufficient_funds`); null while none failed. */
export function failureReasonOf(attempts: readonly GatewayMandateAttempt[]): string | null {
  const failed = attempts.filter(hasFailed).at(-1);
  return failed ? attemptFailureReason(failed) : null;
}

function lockOfReference(em: EntityManager, reference: string) {
  return kyselyOf(em)
    .selectFrom('mandate_charges')
    .selectAll()
    .where('reference', '=', reference)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Same idea for a cycle's charge, keyed by reference: the status only moves forward; `newFailures` are
 * the attempts that failed since the row was last written (for events and the dunning timeline).
 * `retriesRequested` only grows. Locks the row.
 */
export async function upsertMandateCharge(
  em: EntityManager,
  c: {
    organizationId: string;
    mandateId: string;
    subscriptionId: string;
    period: number;
    settlementDate: string;
    retriesRequested?: number;
    gateway: GatewayMandateCharge;
  },
  now: Date,
): Promise<{
  row: MandateChargeRow;
  previousStatus: MandateChargeStatus | null;
  newFailures: GatewayMandateAttempt[];
}> {
  const db = kyselyOf(em);
  const g = c.gateway;
  const retries = Math.min(MAX_RETRIES, c.retriesRequested ?? 0);
  let current = await lockOfReference(em, g.reference);
  if (!current) {
    const attempts = mergedAttempts([], g.attempts);
    const inserted = await db
      .insertInto('mandate_charges')
      .values({
        id: uuidv7(),
        organizationId: c.organizationId,
        mandateId: c.mandateId,
        subscriptionId: c.subscriptionId,
        period: c.period,
        gatewayChargeId: g.id,
        reference: g.reference,
        dueDate: g.dueDate,
        settlementDate: c.settlementDate,
        amount: g.amount,
        status: g.status,
        retriesRequested: retries,
        failureReason: failureReasonOf(attempts),
        attempts,
        paidAt: g.paidAt === null ? null : new Date(g.paidAt),
        createdAt: now,
        updatedAt: now,
      })
      .onConflict((oc) => oc.column('reference').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { row: inserted, previousStatus: null, newFailures: attempts.filter(hasFailed) };
    // Another transaction inserted it meanwhile: this sight is a later one.
    current = await lockOfReference(em, g.reference);
    if (!current) throw new Error(`mandate charge ${g.reference}: neither inserted nor found`);
  }
  const previousStatus = current.status;
  const status = laterChargeStatus(previousStatus, g.status);
  const retriesRequested = Math.max(current.retriesRequested, retries);
  // A stale sight (an earlier status) changes nothing but the retries we asked for.
  const attempts = status === g.status ? mergedAttempts(current.attempts, g.attempts) : current.attempts;
  const failedBefore = new Set(current.attempts.filter(hasFailed).map((a) => a.endToEndId));
  const newFailures = attempts.filter((a) => hasFailed(a) && !failedBefore.has(a.endToEndId));
  const change = {
    status,
    attempts,
    retriesRequested,
    failureReason: failureReasonOf(attempts),
    paidAt: current.paidAt ?? (status === 'completed' && g.paidAt !== null ? new Date(g.paidAt) : null),
  };
  const unchanged = Object.entries(change).every(([key, value]) =>
    sameJson(current[key as keyof typeof change], value),
  );
  if (unchanged) return { row: current, previousStatus, newFailures: [] };
  const row = await db
    .updateTable('mandate_charges')
    .set({ ...change, updatedAt: now })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, previousStatus, newFailures };
}

export async function chargeOfGateway(em: EntityManager, gatewayChargeId: string): Promise<MandateChargeRow | null> {
  const row = await kyselyOf(em)
    .selectFrom('mandate_charges')
    .selectAll()
    .where('gatewayChargeId', '=', gatewayChargeId)
    .executeTakeFirst();
  return row ?? null;
}

/** The mandate's charges, by period. */
export async function chargesOfMandate(em: EntityManager, mandateId: string): Promise<MandateChargeRow[]> {
  return kyselyOf(em)
    .selectFrom('mandate_charges')
    .selectAll()
    .where('mandateId', '=', mandateId)
    .orderBy('period')
    .execute();
}

/** A cycle's charge by our reference (one per subscription and period); null before it was sent. */
export async function chargeOfReference(em: EntityManager, reference: string): Promise<MandateChargeRow | null> {
  const row = await kyselyOf(em)
    .selectFrom('mandate_charges')
    .selectAll()
    .where('reference', '=', reference)
    .executeTakeFirst();
  return row ?? null;
}
