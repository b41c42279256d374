import type { Sql } from './database.ts';
import { addDays } from '../../../domain/business-days.ts';
import {
  cycleDueDate,
  isAllowedRetryDate,
  isChargeFinal,
  chargeWindow,
  isMandateFinal,
  isRetryableFailure,
  MAX_RETRIES,
  mandateAllows,
  RETRY_SPAN_DAYS,
  settlementDateOf,
} from '../../../domain/pix-automatico.ts';
import {
  GatewayError,
  type GatewayCallback,
  type MandateChargeInput,
  type MandateInput,
  type PixChargeInput,
  type GatewayMandate,
  type GatewayMandateCharge,
} from '../../../gateway/port.ts';
import { transactionNotice } from './simulator-callbacks.ts';
import { insertPixCharge } from './simulator-charges.ts';
import { assertAmount, isoDate } from './simulator-input-checks.ts';
import { pendingPix } from './simulator-pix-bcb.ts';
import {
  historyEntry,
  insertAttempt,
  lockCharge,
  lockMandate,
  mandateChargeNotice,
  mandateQrCode,
  mandateNotice,
  MANDATE_COLUMNS,
  moveAttempt,
  moveCharge,
  moveMandate,
  newMandateId,
  newRequestId,
  newTxid,
  simulatorToday,
  withoutPersona,
  readAttempts,
  readCharge,
  toMandate,
  type StoredMandate,
} from './simulator-pix-rows.ts';

/**
 * Pix Automático's port at the simulator (gateway/port.ts PixAutomatico): mandates and their cycles'
 * charges, each call in the transaction that claimed its idempotency key (`sql`), the rail's rules
 * read from domain/pix-automatico.ts. `clock` is the simulator's; its UTC date is "today".
 */

/** A journey 1 request the caller gave no expiry lasts a week. */
const DEFAULT_REQUEST_DAYS = 7;

/** Refusals before the books are touched (no key spent): what no retry of the same call could mend. */
export function assertMandateInput(input: MandateInput): void {
  if (!isoDate.test(input.startDate)) throw new GatewayError('startDate must be a date YYYY-MM-DD', false);
  if (input.endDate !== null && (!isoDate.test(input.endDate) || input.endDate < input.startDate)) {
    throw new GatewayError('endDate must be a date YYYY-MM-DD on or after startDate', false);
  }
  if (input.fixedAmount !== null && input.minimumAmount !== null) {
    throw new GatewayError('A mandate has a fixed amount or a minimum amount, not both', false);
  }
  if (input.fixedAmount !== null) assertAmount(input.fixedAmount);
  if (input.minimumAmount !== null) assertAmount(input.minimumAmount);
  if (input.objectLabel.length === 0 || input.objectLabel.length > 35) {
    throw new GatewayError('objectLabel must have 1 to 35 characters', false);
  }
  if (input.journey === 'journey_3') {
    if (!input.firstCharge) throw new GatewayError('Journey 3 needs the first charge it pays (firstCharge)', false);
    assertAmount(input.firstCharge.amount);
    if (!Number.isInteger(input.firstCharge.expiresInSeconds) || input.firstCharge.expiresInSeconds <= 0) {
      throw new GatewayError('firstCharge.expiresInSeconds must be a positive integer', false);
    }
  }
  if (input.journey === 'journey_4') {
    const due = input.dueCharge;
    if (!due) throw new GatewayError('Journey 4 needs the due-date charge it pays (dueCharge)', false);
    assertAmount(due.amount);
    if (!isoDate.test(due.dueDate)) throw new GatewayError('dueCharge.dueDate must be a date YYYY-MM-DD', false);
    if (!Number.isInteger(due.daysPayableAfterDue) || due.daysPayableAfterDue < 0) {
      throw new GatewayError('dueCharge.daysPayableAfterDue must be a whole number of days, 0 or more', false);
    }
  }
}

/**
 * Journey 4's due-date charge (a cobv) as the simulator's pending pix: payable until the end of its last
 * day in Brasília (`daysPayableAfterDue` after its due date); one whose last day has passed is refused.
 */
export function dueChargePix(input: MandateInput, now: Date): PixChargeInput {
  const due = input.dueCharge!;
  const lastMoment = Date.parse(`${addDays(due.dueDate, due.daysPayableAfterDue)}T23:59:59-03:00`);
  const expiresInSeconds = Math.floor((lastMoment - now.getTime()) / 1000);
  if (expiresInSeconds <= 0) {
    throw new GatewayError(`The due-date charge could be paid until ${new Date(lastMoment).toISOString()}`, false);
  }
  return {
    reference: `${input.reference}:due-payment`,
    amount: due.amount,
    currency: 'BRL',
    buyer: input.debtor.email
      ? { email: input.debtor.email, name: input.debtor.name, taxId: input.debtor.taxId }
      : null,
    expiresInSeconds,
  };
}

/**
 * How the BCB's API creates a mandate (server-pix-automatico.ts), where the port creates it in one call:
 * journey 3's first charge made before it (a pending pix, POST /rec's ativacao.dadosJornada.txid), and
 * journey 1's request sent after it (POST /solicrec).
 */
export interface BcbMandateCreation {
  firstPaymentId?: string;
  requestLater?: boolean;
}

export async function insertMandate(
  sql: Sql,
  clock: () => Date,
  input: MandateInput,
  idempotencyKey: string,
  notices: GatewayCallback[],
  bcb: BcbMandateCreation = {},
): Promise<GatewayMandate> {
  const now = clock();
  const id = newMandateId(input.retryPolicy, simulatorToday(clock), idempotencyKey);
  let firstPaymentId: string | null = null;
  if (bcb.firstPaymentId !== undefined) {
    firstPaymentId = await pendingPix(sql, bcb.firstPaymentId);
  } else if (input.journey === 'journey_3') {
    const firstCharge = input.firstCharge!;
    const pix: PixChargeInput = {
      reference: `${input.reference}:first-payment`,
      amount: firstCharge.amount,
      currency: 'BRL',
      buyer: input.debtor.email
        ? { email: input.debtor.email, name: input.debtor.name, taxId: input.debtor.taxId }
        : null,
      expiresInSeconds: firstCharge.expiresInSeconds,
    };
    const transaction = await insertPixCharge(sql, clock, pix);
    firstPaymentId = transaction.id;
    notices.push(transactionNotice(transaction, now));
  } else if (input.journey === 'journey_4') {
    const transaction = await insertPixCharge(sql, clock, dueChargePix(input, now));
    firstPaymentId = transaction.id;
    notices.push(transactionNotice(transaction, now));
  }
  const expiresAt = input.requestExpiresAt
    ? new Date(input.requestExpiresAt)
    : new Date(now.getTime() + DEFAULT_REQUEST_DAYS * 86_400_000);
  const request =
    input.journey === 'journey_1' && !bcb.requestLater
      ? { id: newRequestId(simulatorToday(clock), idempotencyKey), status: 'sent', expiresAt: expiresAt.toISOString() }
      : null;
  // Journey 4's QR code pays its due-date charge: the BR Code carries that amount.
  const qrAmount = input.journey === 'journey_4' ? input.dueCharge!.amount : input.fixedAmount;
  const qrCode = input.journey === 'journey_1' ? null : mandateQrCode(id, input.reference, qrAmount);
  const [row] = await sql(
    `insert into gateway_sim.mandates (id, reference, status, journey, object_label, debtor, start_date, end_date,
       periodicity, fixed_amount, minimum_amount, retry_policy, history, qr_code, first_payment_id, request, created_at)
     values (?, ?, 'created', ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?::jsonb, ?)
     returning ${MANDATE_COLUMNS}`,
    [
      id,
      input.reference,
      input.journey,
      input.objectLabel,
      JSON.stringify({ name: input.debtor.name, taxId: input.debtor.taxId, email: input.debtor.email ?? null }),
      input.startDate,
      input.endDate,
      input.periodicity,
      input.fixedAmount,
      input.minimumAmount,
      input.retryPolicy,
      historyEntry('created', now),
      qrCode,
      firstPaymentId,
      request ? JSON.stringify(request) : null,
      now,
    ],
  );
  return toMandate(row!);
}

/** A charge's cancellation when its mandate ends: the cobr's codes are not the rec's (SLDB → SLBD, ACCL → ACCT). */
const COBR_CANCELLATION: Record<string, { code: string; description: string }> = {
  SLCR: { code: 'SLCR', description: 'Cancelado a pedido do recebedor' },
  SLDB: { code: 'SLBD', description: 'Recorrência cancelada pelo usuário pagador' },
  ACCL: { code: 'ACCT', description: 'Conta do pagador encerrada' },
};

/**
 * Ends a mandate (`cancellation`), and with it every charge not settled yet: their scheduled attempts
 * are cancelled, as the payer's bank drops a revoked mandate's schedule.
 */
export async function endMandate(
  sql: Sql,
  mandate: StoredMandate,
  cancellation: GatewayMandate['cancellation'],
  at: Date,
  notices: GatewayCallback[],
): Promise<StoredMandate> {
  const ended = await moveMandate(sql, mandate.id, 'cancelled', at, { cancellation: JSON.stringify(cancellation) });
  notices.push(mandateNotice(ended, at));
  const open = await sql<{ id: string }>(
    `select id from gateway_sim.mandate_charges where mandate_id = ? and status in ('created', 'active') order by due_date
     for update`,
    [mandate.id],
  );
  const code = cancellation ? COBR_CANCELLATION[cancellation.code] : undefined;
  const chargeCancellation = cancellation && { ...cancellation, ...(code ?? { code: 'OTHR' }) };
  for (const { id } of open) {
    const charge = await cancelOpenCharge(sql, id, chargeCancellation, at);
    notices.push(mandateChargeNotice(charge, at));
  }
  return ended;
}

/**
 * Ends a mandate with `cancellation` (and its open charges, endMandate) unless it is cancelled already,
 * which is answered as it is; one in any other state `mayEnd` refuses is refused.
 */
export async function cancelMandateAs(
  sql: Sql,
  mandateId: string,
  cancellation: NonNullable<GatewayMandate['cancellation']>,
  at: Date,
  notices: GatewayCallback[],
  mayEnd: (status: GatewayMandate['status']) => boolean,
): Promise<GatewayMandate> {
  const mandate = await lockMandate(sql, mandateId);
  if (mandate.status === 'cancelled') return withoutPersona(mandate);
  if (!mayEnd(mandate.status)) throw new GatewayError(`Cannot cancel a mandate that is ${mandate.status}`, false);
  return withoutPersona(await endMandate(sql, mandate, cancellation, at, notices));
}

/** The receiver cancels its mandate (USUARIO_RECEBEDOR, SLCR); a cancelled one is answered as it is. */
export async function cancelMandateByReceiver(
  sql: Sql,
  clock: () => Date,
  mandateId: string,
  notices: GatewayCallback[],
): Promise<GatewayMandate> {
  const cancellation = { code: 'SLCR', description: 'Cancelado a pedido do recebedor', by: 'receiver' as const };
  return cancelMandateAs(sql, mandateId, cancellation, clock(), notices, (status) => !isMandateFinal(status));
}

export async function insertMandateCharge(
  sql: Sql,
  clock: () => Date,
  input: MandateChargeInput,
  idempotencyKey: string,
  notices: GatewayCallback[],
  id = newTxid(idempotencyKey),
): Promise<GatewayMandateCharge> {
  const mandate = await lockMandate(sql, input.mandateId);
  if (mandate.status !== 'approved') {
    throw new GatewayError(`Cannot charge a mandate that is ${mandate.status}`, false);
  }
  // A fixed mandate takes only its amount; a variable one anything from its minimum up: the payer's
  // maximum is their bank's to enforce when the charge settles (AM02), as real payer banks do.
  if (
    !mandateAllows(
      { ...mandate, payerMaximum: mandate.fixedAmount === null ? null : mandate.payerMaximum },
      input.amount,
    )
  ) {
    throw new GatewayError(`The mandate does not allow a charge of ${input.amount} cents`, false);
  }
  if (input.dueDate < mandate.startDate || (mandate.endDate !== null && input.dueDate > mandate.endDate)) {
    throw new GatewayError(`The due date ${input.dueDate} is outside the mandate's dates`, false);
  }
  // Too late for the payer's bank (less than two days before its due date) is refused. Too early is
  // not: a sandbox test clock runs a subscription months ahead of this simulator's own time, and the
  // engine keeps the window's opening itself (domain chargeSendDate; its tests check the days sent).
  if (simulatorToday(clock) > chargeWindow(input.dueDate).closes) {
    throw new GatewayError(
      `The window to send a charge due on ${input.dueDate} closed before ${simulatorToday(clock)}`,
      false,
    );
  }
  // One live charge per cycle: the payer's bank takes no second charge of the mandate for its due date.
  const [live] = await sql(
    `select id from gateway_sim.mandate_charges where mandate_id = ? and due_date = ? and status <> 'cancelled'`,
    [mandate.id, input.dueDate],
  );
  if (live) throw new GatewayError(`The mandate has a charge due on ${input.dueDate} already (${live.id})`, false);
  const now = clock();
  await sql(
    `insert into gateway_sim.mandate_charges (id, mandate_id, reference, due_date, amount, description, status,
       retry_policy, history, created_at)
     values (?, ?, ?, ?, ?, ?, 'active', ?, ?::jsonb, ?)`,
    [
      id,
      mandate.id,
      input.reference,
      input.dueDate,
      input.amount,
      input.description ?? null,
      mandate.retryPolicy,
      JSON.stringify([...JSON.parse(historyEntry('created', now)), ...JSON.parse(historyEntry('active', now))]),
      now,
    ],
  );
  await insertAttempt(sql, id, { number: 0, settlementDate: settlementDateOf(input.dueDate), kind: 'scheduled' }, now);
  const charge = (await readCharge(sql, id))!;
  notices.push(mandateChargeNotice(charge, now));
  return charge;
}

/**
 * The last day a charge may still be retried on: the latest day the rail allows (isAllowedRetryDate)
 * that settles before the mandate's next cycle does; null when none (the policy allows no retry).
 */
export async function lastRetryDay(sql: Sql, charge: GatewayMandateCharge): Promise<string | null> {
  const next = await nextCycleSettlement(sql, charge);
  for (let days = RETRY_SPAN_DAYS; days >= 1; days--) {
    const day = addDays(settlementDateOf(charge.dueDate), days);
    if (isAllowedRetryDate(charge.dueDate, day, charge.retryPolicy) && (next === null || day < next)) return day;
  }
  return null;
}

/** When the mandate's cycle after the charge's settles (null past the mandate's end date). */
async function nextCycleSettlement(sql: Sql, charge: GatewayMandateCharge): Promise<string | null> {
  const [row] = await sql<{ start_date: string; end_date: string | null; periodicity: string }>(
    `select start_date::text as start_date, end_date::text as end_date, periodicity from gateway_sim.mandates where id = ?`,
    [charge.mandateId],
  );
  const periodicity = row!.periodicity as GatewayMandate['periodicity'];
  for (let cycle = 1; cycle < 10_000; cycle++) {
    const due = cycleDueDate(row!.start_date, periodicity, cycle);
    if (row!.end_date !== null && due > row!.end_date) return null;
    if (due > charge.dueDate) return settlementDateOf(due);
  }
  return null;
}

/**
 * A later-day retry (POST /cobr/{txid}/retentativa/{data}): only of an open charge whose last attempt
 * failed in a way a retry can mend, under a policy that allows it, at most three, each on a day the
 * rail allows that settles after the last attempt and before the next cycle.
 */
export async function retryCharge(
  sql: Sql,
  clock: () => Date,
  chargeId: string,
  settlementDate: string,
  notices: GatewayCallback[],
): Promise<GatewayMandateCharge> {
  if (!isoDate.test(settlementDate)) throw new GatewayError('The retry date must be a date YYYY-MM-DD', false);
  const charge = await lockCharge(sql, chargeId);
  if (charge.status !== 'active') throw new GatewayError(`Cannot retry a charge that is ${charge.status}`, false);
  if (charge.retryPolicy === 'none') throw new GatewayError("The mandate's policy allows no retry", false);
  const attempts = await readAttempts(sql, chargeId);
  const last = attempts[attempts.length - 1]!;
  if (attempts.length > MAX_RETRIES) throw new GatewayError(`A charge has at most ${MAX_RETRIES} retries`, false);
  if (!isRetryableFailure(last)) {
    throw new GatewayError(`Cannot retry a charge whose last attempt is ${last.status}`, false);
  }
  const lastDay = await lastRetryDay(sql, charge);
  if (
    !isAllowedRetryDate(charge.dueDate, settlementDate, charge.retryPolicy) ||
    settlementDate <= last.settlementDate ||
    lastDay === null ||
    settlementDate > lastDay
  ) {
    throw new GatewayError(`${settlementDate} is not a day this charge may be retried on`, false);
  }
  const now = clock();
  await insertAttempt(sql, chargeId, { number: attempts.length, settlementDate, kind: 'retry' }, now);
  const retried = (await readCharge(sql, chargeId))!;
  notices.push(mandateChargeNotice(retried, now));
  return retried;
}

/** The receiver cancels an unsettled charge; a paid (or otherwise ended) one is refused, a cancelled one answered as it is. */
export async function cancelChargeByReceiver(
  sql: Sql,
  clock: () => Date,
  chargeId: string,
  notices: GatewayCallback[],
): Promise<GatewayMandateCharge> {
  const charge = await lockCharge(sql, chargeId);
  if (charge.status === 'cancelled') return charge;
  if (isChargeFinal(charge.status)) throw new GatewayError(`Cannot cancel a charge that is ${charge.status}`, false);
  const now = clock();
  const cancelled = await cancelOpenCharge(
    sql,
    chargeId,
    { code: 'SLCR', description: 'Cancelado a pedido do recebedor', by: 'receiver' },
    now,
  );
  notices.push(mandateChargeNotice(cancelled, now));
  return cancelled;
}

async function cancelOpenCharge(
  sql: Sql,
  chargeId: string,
  cancellation: GatewayMandateCharge['cancellation'],
  at: Date,
): Promise<GatewayMandateCharge> {
  for (const attempt of await readAttempts(sql, chargeId)) {
    if (attempt.status === 'scheduled' || attempt.status === 'requested') {
      await moveAttempt(sql, chargeId, attempt.number, 'cancelled', at);
    }
  }
  await moveCharge(sql, chargeId, 'cancelled', at, { cancellation: JSON.stringify(cancellation) });
  return (await readCharge(sql, chargeId))!;
}
