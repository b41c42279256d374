import type { Sql } from './database.ts';
import { isRetryableFailure, MAX_RETRIES } from '../../../domain/pix-automatico.ts';
import {
  GatewayError,
  type GatewayCallback,
  type GatewayMandate,
  type GatewayMandateCharge,
  type PixPayerPersona,
} from '../../../gateway/port.ts';
import { transactionNotice } from './simulator-callbacks.ts';
import { cancelMandateAs, endMandate, lastRetryDay } from './simulator-pix-automatico.ts';
import {
  brasiliaTime,
  lockCharge,
  lockMandate,
  mandateChargeNotice,
  mandateNotice,
  MANDATE_COLUMNS,
  moveAttempt,
  moveCharge,
  moveMandate,
  readAttempts,
  toStoredMandate,
  withoutPersona,
  type PixReasonCode,
  type StoredAttempt,
  type StoredMandate,
} from './simulator-pix-rows.ts';
import { authorizationCode, lockTransaction, recordCapture } from './simulator-transactions.ts';

/**
 * The sandbox's payers and their bank (gateway/port.ts SandboxPixAutomatico): a mandate is answered,
 * and each attempt settled, as the payer's persona (contracts/pix-automatico.ts) does.
 */

const REASONS: Record<string, string> = {
  AP13: 'Rejeitada pelo usuário pagador',
  AP14: 'Recorrência rejeitada após o pagamento da primeira cobrança',
  AM02: 'Valor acima do máximo definido pelo pagador',
  AC05: 'Conta do pagador encerrada',
  SLDB: 'Cancelado pelo usuário pagador',
  ACCL: 'Conta do pagador encerrada',
};
const reason = (code: string): PixReasonCode => ({ code, description: REASONS[code] ?? code });

const personaOf = (mandate: StoredMandate) => (mandate.persona ?? 'approves') as PixPayerPersona;

// ── Answering a mandate ──────────────────────────────────────────────────────────────────────

/**
 * The payer answers a mandate still waiting for them as `persona` does; journey 3 pays its first charge,
 * which answers it (answerFirstPayment). A mandate already answered is returned as it is; a journey 1
 * request answered after its expiry expires the mandate.
 */
export async function authorize(
  sql: Sql,
  clock: () => Date,
  mandateId: string,
  persona: PixPayerPersona,
  notices: GatewayCallback[],
): Promise<GatewayMandate> {
  const mandate = await expireLapsedRequest(sql, clock, mandateId, notices);
  if (mandate.status !== 'created') return withoutPersona(mandate);
  const now = clock();
  await sql('update gateway_sim.mandates set persona = ? where id = ?', [persona, mandateId]);
  if (mandate.journey === 'journey_3' || mandate.journey === 'journey_4') {
    if (await firstPaymentLapsed(sql, mandate.firstPaymentId!, now)) {
      // The QR code was read too late: its pix can no longer be paid, and the recurrence it offered expires.
      const expired = await moveMandate(sql, mandateId, 'expired', now, { qr_code: null });
      notices.push(mandateNotice(expired, now));
      return withoutPersona(expired);
    }
    await payFirstPayment(sql, now, mandate.firstPaymentId!, notices);
    await answerFirstPayment(sql, clock, mandate.firstPaymentId!, notices);
    return withoutPersona(await lockMandate(sql, mandateId));
  }
  return withoutPersona(await answer(sql, { ...mandate, persona }, now, notices));
}

/**
 * The mandate, locked, with a journey 1 request past its expiry (on the simulator's clock) and still
 * unanswered expired first, as the payer's bank expires it on its own: the rec and its solicrec both
 * EXPIRADA, notified once (a mandate no longer `created` is left as it is).
 */
export async function expireLapsedRequest(
  sql: Sql,
  clock: () => Date,
  mandateId: string,
  notices: GatewayCallback[],
): Promise<StoredMandate> {
  const mandate = await lockMandate(sql, mandateId);
  const now = clock();
  if (!requestLapsed(mandate, now)) return mandate;
  const expired = await moveMandate(sql, mandateId, 'expired', now, {
    request: JSON.stringify({ ...mandate.request, status: 'expired' }),
  });
  notices.push(mandateNotice(expired, now));
  return expired;
}

/** Whether a journey 1 request has lapsed unanswered (a read that sees one expires it: expireLapsedRequest). */
export function requestLapsed(mandate: StoredMandate, now: Date): boolean {
  return mandate.status === 'created' && mandate.request !== null && new Date(mandate.request.expiresAt) <= now;
}

async function firstPaymentLapsed(sql: Sql, transactionId: string, now: Date): Promise<boolean> {
  const [row] = await sql<{ status: string; lapses_at: string | null }>(
    'select status, lapses_at from gateway_sim.transactions where id = ?',
    [transactionId],
  );
  return (
    row!.status === 'failed' ||
    (row!.status === 'pending' && row!.lapses_at !== null && new Date(row!.lapses_at) <= now)
  );
}

/** The payer pays journey 3's first charge or journey 4's due-date one (a pending pix), as SimulatedGateway.pay does. */
async function payFirstPayment(sql: Sql, now: Date, transactionId: string, notices: GatewayCallback[]): Promise<void> {
  const t = await lockTransaction(sql, transactionId);
  if (t.status === 'succeeded') return;
  if (t.status !== 'pending') throw new GatewayError(`The first payment is ${t.status}: it cannot be paid`, false);
  await sql(
    `update gateway_sim.transactions set status = 'succeeded', confirmed_at = ?, authorization_code = ?, updated_at = now()
     where id = ?`,
    [now, authorizationCode(), t.id],
  );
  notices.push(transactionNotice(await recordCapture(sql, t.id, t.baseAmount, null), now));
}

/**
 * Journeys 3 and 4: the payment of the charge a mandate's QR code carries (transaction `transactionId`)
 * answers the recurrence offered with it, as the mandate's persona does (approves when the sandbox chose
 * none). Nothing for any other transaction.
 */
export async function answerFirstPayment(
  sql: Sql,
  clock: () => Date,
  transactionId: string,
  notices: GatewayCallback[],
): Promise<void> {
  const [row] = await sql(
    `select ${MANDATE_COLUMNS} from gateway_sim.mandates where first_payment_id = ? and status = 'created' for update`,
    [transactionId],
  );
  if (row) await answer(sql, toStoredMandate(row), clock(), notices);
}

async function answer(sql: Sql, mandate: StoredMandate, now: Date, notices: GatewayCallback[]): Promise<StoredMandate> {
  const persona = personaOf(mandate);
  const request = (status: string) => (mandate.request ? JSON.stringify({ ...mandate.request, status }) : null);
  let answered: StoredMandate;
  if (persona === 'rejects_authorization') {
    // Journey 3's (or 4's) payer paid the charge and refused only the recurrence.
    const code = mandate.journey === 'journey_3' || mandate.journey === 'journey_4' ? 'AP14' : 'AP13';
    answered = await moveMandate(sql, mandate.id, 'rejected', now, {
      rejection: JSON.stringify(reason(code)),
      request: request('rejected'),
      qr_code: null,
    });
  } else {
    // lowers_maximum: a cent under a fixed mandate's amount; a variable one's down to the receiver's
    // minimum (their bank allows no lower), or R$ 1.00 without one.
    const lowered = mandate.fixedAmount !== null ? mandate.fixedAmount - 1 : (mandate.minimumAmount ?? 100);
    const maximum = persona === 'lowers_maximum' ? lowered : mandate.payerMaximum;
    answered = await moveMandate(sql, mandate.id, 'approved', now, {
      request: request('accepted'),
      qr_code: null,
      payer_maximum: maximum,
    });
  }
  notices.push(mandateNotice(answered, now));
  return answered;
}

/** The payer revokes an approved mandate in their bank's app (USUARIO_PAGADOR, SLDB); a cancelled one is as it is. */
export async function revoke(
  sql: Sql,
  clock: () => Date,
  mandateId: string,
  notices: GatewayCallback[],
): Promise<GatewayMandate> {
  const cancellation = { ...reason('SLDB'), by: 'payer' as const };
  return cancelMandateAs(sql, mandateId, cancellation, clock(), notices, (status) => status === 'approved');
}

/** The payer sets their maximum per charge (null: none); their bank never lets it under the receiver's minimum. */
export async function setMaximum(
  sql: Sql,
  clock: () => Date,
  mandateId: string,
  maximum: number | null,
  notices: GatewayCallback[],
): Promise<GatewayMandate> {
  if (maximum !== null && (!Number.isSafeInteger(maximum) || maximum <= 0)) {
    throw new GatewayError('The maximum must be a positive integer of cents, or null', false);
  }
  const mandate = await lockMandate(sql, mandateId);
  if (mandate.status !== 'approved') throw new GatewayError(`Cannot change a mandate that is ${mandate.status}`, false);
  if (maximum !== null && mandate.minimumAmount !== null && maximum < mandate.minimumAmount) {
    throw new GatewayError("The maximum cannot be under the receiver's minimum", false);
  }
  const [row] = await sql(
    `update gateway_sim.mandates set payer_maximum = ? where id = ? returning ${MANDATE_COLUMNS}`,
    [maximum, mandateId],
  );
  const updated = toStoredMandate(row!);
  notices.push(mandateNotice(updated, clock()));
  return withoutPersona(updated);
}

// ── Settling the attempts ────────────────────────────────────────────────────────────────────

/** How the payer's bank ends one attempt: paid, rejected with a code, or expired (no funds all day). */
interface AttemptEnd {
  status: 'paid' | 'rejected' | 'expired';
  code: string | null;
  /** São Paulo time of day (HH:MM) it ends. */
  at: string;
  /** A morning without funds before the evening's payment (no_funds_morning). */
  triedInTheMorning?: boolean;
}

/** The payer's bank on an attempt's settlement day, as the persona plays it. */
export function attemptEnd(
  persona: PixPayerPersona,
  attempt: Pick<StoredAttempt, 'kind'>,
  amount: number,
  payerMaximum: number | null,
): AttemptEnd {
  if (persona === 'closed_account') return { status: 'rejected', code: 'AC05', at: '06:00' };
  if (payerMaximum !== null && amount > payerMaximum) return { status: 'rejected', code: 'AM02', at: '06:00' };
  if (persona === 'no_funds_until_retry' && attempt.kind !== 'retry')
    return { status: 'expired', code: null, at: '23:59' };
  if (persona === 'no_funds_morning') return { status: 'paid', code: null, at: '20:00', triedInTheMorning: true };
  return { status: 'paid', code: null, at: '06:00' };
}

/**
 * The payer's bank settles every scheduled attempt due on or before `asOf`, in settlement order, then
 * ends the charges no retry can mend any more (their last retry day has passed, or none is allowed).
 * With `mandateIds`, only those mandates' charges (one merchant's, in a shared sandbox).
 * The charges changed, in the order they changed.
 */
export async function settleDue(
  sql: Sql,
  asOf: string,
  notices: GatewayCallback[],
  mandateIds?: readonly string[],
): Promise<GatewayMandateCharge[]> {
  // null: every mandate's charges; a list (even an empty one): only theirs.
  const only = mandateIds === undefined ? null : [...mandateIds];
  const due = await sql<{ charge_id: string; number: number }>(
    `select a.charge_id, a.number from gateway_sim.mandate_attempts a
       join gateway_sim.mandate_charges c on c.id = a.charge_id
     where a.status = 'scheduled' and c.status = 'active' and a.settlement_date <= ?
       and (?::text[] is null or c.mandate_id = any(?::text[]))
     order by a.settlement_date, c.created_at, a.number`,
    [asOf, only, only],
  );
  const changed = new Set<string>();
  for (const { charge_id: chargeId, number } of due) {
    for (const id of await settleAttempt(sql, chargeId, Number(number), notices)) changed.add(id);
  }
  const open = await sql<{ id: string }>(
    `select c.id from gateway_sim.mandate_charges c
     where c.status = 'active' and (?::text[] is null or c.mandate_id = any(?::text[]))
       and exists (select 1 from gateway_sim.mandate_attempts a
       where a.charge_id = c.id and a.status in ('expired', 'rejected')
         and a.number = (select max(number) from gateway_sim.mandate_attempts where charge_id = c.id))
     order by c.created_at`,
    [only, only],
  );
  for (const { id } of open) {
    if (await endIfNoRetryLeft(sql, id, asOf, notices)) changed.add(id);
  }
  const charges: GatewayMandateCharge[] = [];
  for (const id of changed) charges.push(await lockCharge(sql, id));
  return charges;
}

/** One attempt settled; the ids of the charges it changed. */
async function settleAttempt(
  sql: Sql,
  chargeId: string,
  number: number,
  notices: GatewayCallback[],
): Promise<string[]> {
  const charge = await lockCharge(sql, chargeId);
  const attempt = (await readAttempts(sql, chargeId)).find((a) => a.number === number)!;
  if (charge.status !== 'active' || attempt.status !== 'scheduled') return [];
  const mandate = await lockMandate(sql, charge.mandateId);
  const persona = personaOf(mandate);
  if (persona === 'revokes' && (await paidCycles(sql, mandate)) >= 1) {
    // The payer revokes in their bank's app before the second cycle settles: its charge goes with the mandate.
    const at = brasiliaTime(attempt.settlementDate, '05:00');
    await endMandate(sql, mandate, { ...reason('SLDB'), by: 'payer' }, at, notices);
    return [chargeId];
  }
  const end = attemptEnd(persona, attempt, charge.amount, mandate.payerMaximum);
  const at = brasiliaTime(attempt.settlementDate, end.at);
  if (end.triedInTheMorning) {
    await moveAttempt(sql, chargeId, number, 'scheduled', brasiliaTime(attempt.settlementDate, '06:00'));
  }
  const rejection = end.code === null ? null : reason(end.code);
  await moveAttempt(sql, chargeId, number, end.status, at, rejection);
  if (end.status === 'paid') {
    await moveCharge(sql, chargeId, 'completed', at, { paid_at: at });
  } else if (!isRetryableFailure({ status: end.status, rejection })) {
    await moveCharge(sql, chargeId, 'rejected', at, { rejection: JSON.stringify(rejection) });
  }
  notices.push(mandateChargeNotice(await lockCharge(sql, chargeId), at));
  if (end.code === 'AC05') {
    // The payer's bank ends the mandate of a closed account (ACCL), and every charge still open under it.
    await endMandate(sql, mandate, { ...reason('ACCL'), by: 'payer_psp' }, at, notices);
  }
  return [chargeId];
}

/**
 * Cycles the payer has paid under a mandate: its charges settled, and journey 3's first payment (journey
 * 4's due-date charge paid a period billed before the mandate, not one of its cycles).
 */
async function paidCycles(sql: Sql, mandate: StoredMandate): Promise<number> {
  const [row] = await sql<{ n: number }>(
    `select (select count(*)::int from gateway_sim.mandate_charges where mandate_id = ? and status = 'completed')
          + (select count(*)::int from gateway_sim.transactions where id = ? and status = 'succeeded') as n`,
    [mandate.id, mandate.journey === 'journey_3' ? mandate.firstPaymentId : null],
  );
  return Number(row!.n);
}

/**
 * An open charge whose last attempt failed ends (expired without funds, or rejected with the last
 * attempt's code) when no retry can come any more: the policy allows none, three were made, or its
 * last retry day is on or before `asOf` with no retry asked. Whether it ended.
 */
async function endIfNoRetryLeft(sql: Sql, chargeId: string, asOf: string, notices: GatewayCallback[]) {
  const charge = await lockCharge(sql, chargeId);
  const attempts = await readAttempts(sql, chargeId);
  const last = attempts[attempts.length - 1]!;
  if (charge.status !== 'active' || (last.status !== 'expired' && last.status !== 'rejected')) return false;
  const lastDay = await lastRetryDay(sql, charge);
  if (attempts.length <= MAX_RETRIES && lastDay !== null && lastDay > asOf) return false;
  const at = brasiliaTime(attempts.length > MAX_RETRIES || lastDay === null ? last.settlementDate : lastDay, '23:59');
  if (last.status === 'expired') await moveCharge(sql, chargeId, 'expired', at);
  else await moveCharge(sql, chargeId, 'rejected', at, { rejection: JSON.stringify(last.rejection) });
  notices.push(mandateChargeNotice(await lockCharge(sql, chargeId), at));
  return true;
}
