import { pixBrCode } from '../../../gateway/payment-documents.ts';
import type { Row, Sql } from './database.ts';
import {
  GatewayError,
  type GatewayCallback,
  type GatewayMandate,
  type GatewayMandateCharge,
} from '../../../gateway/port.ts';
import { newId } from './simulator-rows.ts';
import { bcbEndToEndIdOf, bcbRecIdOf, bcbSolicRecIdOf, bcbTxidOf } from '../../../gateway/bcb-pix-automatico-words.ts';

type GatewayMandateAttempt = GatewayMandateCharge['attempts'][number];
export type PixReasonCode = NonNullable<GatewayMandate['rejection']>;

/**
 * Pix Automático's rows (gateway_sim.mandates, mandate_charges, mandate_attempts) as the port's
 * records, their ids in the BCB's formats, and the notices of their changes.
 */

/** The simulated receiver's PSP and the payers' bank, as ISPB-like 8-digit agent ids. */
const RECEIVER_ISPB = '99999003';
const PAYER_ISPB = '99999004';
/** The payers' bank as the BCB's payloads name it (a rec's pagador, a solicrec's destinatario). */
export const SANDBOX_PAYER_BANK = { ispb: PAYER_ISPB, account: '0000001', branch: '0001' };

/**
 * The BCB's ids (gateway/bcb-pix-automatico-words.ts), formed from the idempotency key of the call that
 * makes them, so a retried creation forms the same id: an idRec (29 characters, `RR` or `RN` by the
 * retry policy), its journey 1 request's idSolicRec, a cobr's txid (35 alphanumerics), an attempt's
 * end-to-end id (32 characters, the UTC minute it settles).
 */
export const newMandateId = (policy: GatewayMandate['retryPolicy'], today: string, key: string) =>
  bcbRecIdOf(policy, RECEIVER_ISPB, today, key);
export const newRequestId = (today: string, key: string) => bcbSolicRecIdOf(RECEIVER_ISPB, today, key);
export const newTxid = (key: string) => bcbTxidOf(key);
export const newEndToEndId = (settlesAt: Date, attemptKey: string) =>
  bcbEndToEndIdOf(PAYER_ISPB, settlesAt.toISOString(), attemptKey);

/** The instant `hhmm` (São Paulo time, UTC−3, no daylight saving since 2019) of `date`. */
export const brasiliaTime = (date: string, hhmm: string) => new Date(`${date}T${hhmm}:00-03:00`);

export const MANDATE_COLUMNS = `id, reference, status, journey, object_label, debtor, start_date::text as start_date,
  end_date::text as end_date, periodicity, fixed_amount, minimum_amount, payer_maximum, retry_policy, persona,
  rejection, cancellation, history, qr_code, first_payment_id, request`;
export const CHARGE_COLUMNS = `id, mandate_id, reference, due_date::text as due_date, amount, status, retry_policy,
  rejection, cancellation, history, paid_at`;
const ATTEMPT_COLUMNS = `charge_id, number, settlement_date::text as settlement_date, kind, status, end_to_end_id,
  rejection, history`;

const amountOf = (v: unknown) => (v == null ? null : Number(v));
const isoOf = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());

export function toMandate(row: Row): GatewayMandate {
  return {
    id: row.id as string,
    reference: row.reference as string,
    status: row.status as GatewayMandate['status'],
    journey: row.journey as GatewayMandate['journey'],
    objectLabel: row.object_label as string,
    debtor: row.debtor as GatewayMandate['debtor'],
    startDate: row.start_date as string,
    endDate: (row.end_date as string | null) ?? null,
    periodicity: row.periodicity as GatewayMandate['periodicity'],
    fixedAmount: amountOf(row.fixed_amount),
    minimumAmount: amountOf(row.minimum_amount),
    payerMaximum: amountOf(row.payer_maximum),
    retryPolicy: row.retry_policy as GatewayMandate['retryPolicy'],
    rejection: (row.rejection as PixReasonCode | null) ?? null,
    cancellation: (row.cancellation as GatewayMandate['cancellation']) ?? null,
    history: row.history as GatewayMandate['history'],
    qrCode: (row.qr_code as string | null) ?? null,
    firstPaymentId: (row.first_payment_id as string | null) ?? null,
    request: (row.request as GatewayMandate['request']) ?? null,
  };
}

/** What the sandbox keeps of a mandate beyond the port's record: the payer it plays. */
export type StoredMandate = GatewayMandate & { persona: string | null };

export const toStoredMandate = (row: Row): StoredMandate => ({
  ...toMandate(row),
  persona: (row.persona as string | null) ?? null,
});

/** The port's record of a stored mandate (the payer it plays is the sandbox's secret). */
export const withoutPersona = ({ persona: _persona, ...mandate }: StoredMandate): GatewayMandate => mandate;

/** The simulator's "today": its clock's UTC date. */
export const simulatorToday = (clock: () => Date) => clock().toISOString().slice(0, 10);

/** An attempt as stored: its number (0 the first, 1–3 the retries) besides the port's record. */
export type StoredAttempt = GatewayMandateAttempt & { number: number };

function toAttempt(row: Row): StoredAttempt {
  return {
    number: Number(row.number),
    settlementDate: row.settlement_date as string,
    kind: row.kind as GatewayMandateAttempt['kind'],
    status: row.status as GatewayMandateAttempt['status'],
    endToEndId: row.end_to_end_id as string,
    rejection: (row.rejection as PixReasonCode | null) ?? null,
    history: row.history as GatewayMandateAttempt['history'],
  };
}

export async function readMandate(sql: Sql, mandateId: string, lock = false): Promise<StoredMandate | null> {
  const [row] = await sql(
    `select ${MANDATE_COLUMNS} from gateway_sim.mandates where id = ?${lock ? ' for update' : ''}`,
    [mandateId],
  );
  return row ? toStoredMandate(row) : null;
}

export async function lockMandate(sql: Sql, mandateId: string): Promise<StoredMandate> {
  const mandate = await readMandate(sql, mandateId, true);
  if (!mandate) throw new GatewayError(`Unknown mandate ${mandateId}`, false);
  return mandate;
}

export async function readAttempts(sql: Sql, chargeId: string): Promise<StoredAttempt[]> {
  const rows = await sql(
    `select ${ATTEMPT_COLUMNS} from gateway_sim.mandate_attempts where charge_id = ? order by number`,
    [chargeId],
  );
  return rows.map(toAttempt);
}

export async function readCharge(sql: Sql, chargeId: string, lock = false): Promise<GatewayMandateCharge | null> {
  const [row] = await sql(
    `select ${CHARGE_COLUMNS} from gateway_sim.mandate_charges where id = ?${lock ? ' for update' : ''}`,
    [chargeId],
  );
  if (!row) return null;
  const attempts = (await readAttempts(sql, chargeId)).map(({ number: _number, ...attempt }) => attempt);
  return {
    id: row.id as string,
    mandateId: row.mandate_id as string,
    reference: row.reference as string,
    dueDate: row.due_date as string,
    amount: Number(row.amount),
    status: row.status as GatewayMandateCharge['status'],
    retryPolicy: row.retry_policy as GatewayMandateCharge['retryPolicy'],
    attempts,
    rejection: (row.rejection as PixReasonCode | null) ?? null,
    cancellation: (row.cancellation as GatewayMandateCharge['cancellation']) ?? null,
    history: row.history as GatewayMandateCharge['history'],
    paidAt: isoOf(row.paid_at),
  };
}

export async function lockCharge(sql: Sql, chargeId: string): Promise<GatewayMandateCharge> {
  const charge = await readCharge(sql, chargeId, true);
  if (!charge) throw new GatewayError(`Unknown mandate charge ${chargeId}`, false);
  return charge;
}

/** One status change as the history column appends it. */
export const historyEntry = (status: string, at: Date) => JSON.stringify([{ status, at: at.toISOString() }]);

/** A mandate moves to `status`; `fields` are other columns set with it (jsonb values already JSON text). */
export async function moveMandate(
  sql: Sql,
  mandateId: string,
  status: string,
  at: Date,
  fields: Record<string, unknown> = {},
): Promise<StoredMandate> {
  const names = Object.keys(fields);
  const [row] = await sql(
    `update gateway_sim.mandates set status = ?, history = history || ?::jsonb${names.map((n) => `, ${n} = ?`).join('')}
     where id = ? returning ${MANDATE_COLUMNS}`,
    [status, historyEntry(status, at), ...names.map((n) => fields[n]), mandateId],
  );
  return toStoredMandate(row!);
}

/** A charge moves to `status`, as moveMandate. */
export async function moveCharge(
  sql: Sql,
  chargeId: string,
  status: string,
  at: Date,
  fields: Record<string, unknown> = {},
): Promise<void> {
  const names = Object.keys(fields);
  await sql(
    `update gateway_sim.mandate_charges set status = ?, history = history || ?::jsonb${names
      .map((n) => `, ${n} = ?`)
      .join('')} where id = ?`,
    [status, historyEntry(status, at), ...names.map((n) => fields[n]), chargeId],
  );
}

/** An attempt moves to `status` (with its rejection when rejected). */
export async function moveAttempt(
  sql: Sql,
  chargeId: string,
  number: number,
  status: string,
  at: Date,
  rejection: PixReasonCode | null = null,
): Promise<void> {
  await sql(
    `update gateway_sim.mandate_attempts set status = ?, rejection = ?::jsonb, history = history || ?::jsonb
     where charge_id = ? and number = ?`,
    [status, rejection ? JSON.stringify(rejection) : null, historyEntry(status, at), chargeId, number],
  );
}

export async function insertAttempt(
  sql: Sql,
  chargeId: string,
  attempt: { number: number; settlementDate: string; kind: string },
  at: Date,
): Promise<void> {
  await sql(
    `insert into gateway_sim.mandate_attempts (charge_id, number, settlement_date, kind, status, end_to_end_id, history)
     values (?, ?, ?, ?, 'scheduled', ?, ?::jsonb)`,
    [
      chargeId,
      attempt.number,
      attempt.settlementDate,
      attempt.kind,
      newEndToEndId(brasiliaTime(attempt.settlementDate, '06:00'), `${chargeId}:attempt:${attempt.number}`),
      historyEntry('scheduled', at),
    ],
  );
}

/** The record a notice was made of, as it stood then: what the BCB's webhook of that notice tells. */
export type NoticeRecord = { mandate: GatewayMandate } | { charge: GatewayMandateCharge };
const noticeRecords = new WeakMap<GatewayCallback, NoticeRecord>();
export const recordOfNotice = (notice: GatewayCallback) => noticeRecords.get(notice);

export function mandateNotice(mandate: GatewayMandate, occurredAt: Date): GatewayCallback {
  const notice: GatewayCallback = {
    id: newId('cb'),
    type: 'mandate.updated',
    mandateId: mandate.id,
    status: mandate.status,
    occurredAt: occurredAt.toISOString(),
  };
  noticeRecords.set(notice, { mandate });
  return notice;
}

export function mandateChargeNotice(charge: GatewayMandateCharge, occurredAt: Date): GatewayCallback {
  const notice: GatewayCallback = {
    id: newId('cb'),
    type: 'mandate_charge.updated',
    mandateChargeId: charge.id,
    mandateId: charge.mandateId,
    status: charge.status,
    occurredAt: occurredAt.toISOString(),
  };
  noticeRecords.set(notice, { charge });
  return notice;
}

/** The composite QR code's copy-and-paste (journeys 2, 3 and 4): a BR Code naming the recurrence's location. */
export function mandateQrCode(mandateId: string, reference: string, amount: number | null): string {
  return `${pixBrCode({ transactionId: mandateId, reference, amount: amount ?? 0 })}|rec:${mandateId}`;
}
