import {
  addDays,
  daysBetween,
  isBusinessDay,
  nextBusinessDay,
  onOrAfterBusinessDay,
  onOrBeforeBusinessDay,
} from './business-days.ts';
import { addInterval, isoDate, type PeriodInterval } from './periods.ts';

/**
 * Pix Automático's rules (decision 0096), shared by the subscription's workflow, its activities, the
 * simulator and the API: which prices it can bill, each cycle's due date, the window a charge is sent
 * in, the later-day retries under the mandate's policy, and how the states of a mandate and a charge
 * only move forward whatever order the gateway's notices come in. Dates are YYYY-MM-DD; no clock here.
 */

// ── The BCB's words, ours ─────────────────────────────────────────────────────────────────────

/** RecStatus: CRIADA, APROVADA, REJEITADA, EXPIRADA, CANCELADA. */
export const MANDATE_STATUSES = ['created', 'approved', 'rejected', 'expired', 'cancelled'] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];

/**
 * How the payer authorized it (RecAtivacao.tipoJornada): 1 a request pushed to the payer's bank,
 * 2 a QR code that only authorizes, 3 a QR code that pays the first charge and authorizes, 4 a
 * due-date QR code that offers the recurrence after payment; `pending` before it is activated.
 */
export const MANDATE_JOURNEYS = ['journey_1', 'journey_2', 'journey_3', 'journey_4', 'pending'] as const;
export type MandateJourney = (typeof MANDATE_JOURNEYS)[number];

/** calendario.periodicidade: SEMANAL, MENSAL, TRIMESTRAL, SEMESTRAL, ANUAL. */
export const MANDATE_PERIODICITIES = ['weekly', 'monthly', 'quarterly', 'semiannual', 'yearly'] as const;
export type MandatePeriodicity = (typeof MANDATE_PERIODICITIES)[number];

/** politicaRetentativa: NAO_PERMITE, PERMITE_3R_7D (three more tries within seven days of the due date). */
export const MANDATE_RETRY_POLICIES = ['none', 'three_in_seven_days'] as const;
export type MandateRetryPolicy = (typeof MANDATE_RETRY_POLICIES)[number];

/** encerramento.cancelamento.solicitante: PSP_PAGADOR, USUARIO_PAGADOR, PSP_RECEBEDOR, USUARIO_RECEBEDOR. */
export const MANDATE_CANCELLED_BY = ['payer_psp', 'payer', 'receiver_psp', 'receiver'] as const;
export type MandateCancelledBy = (typeof MANDATE_CANCELLED_BY)[number];

/** SolicRecStatus: the request of journey 1 as it travels to the payer's bank. */
export const MANDATE_REQUEST_STATUSES = [
  'created',
  'sent',
  'received',
  'rejected',
  'accepted',
  'expired',
  'cancelled',
] as const;
export type MandateRequestStatus = (typeof MANDATE_REQUEST_STATUSES)[number];

/** CobRStatus: a cycle's charge. */
export const MANDATE_CHARGE_STATUSES = ['created', 'active', 'completed', 'expired', 'rejected', 'cancelled'] as const;
export type MandateChargeStatus = (typeof MANDATE_CHARGE_STATUSES)[number];

/** CobRTentativas.status: one settlement try of a charge, on one date. */
export const MANDATE_ATTEMPT_STATUSES = ['requested', 'scheduled', 'paid', 'cancelled', 'rejected', 'expired'] as const;
export type MandateAttemptStatus = (typeof MANDATE_ATTEMPT_STATUSES)[number];

/** CobRTentativas.tipo: AGND (scheduled in time), NTAG (not scheduled: sent late), RIFL (a later-day retry). */
export const MANDATE_ATTEMPT_KINDS = ['scheduled', 'unscheduled', 'retry'] as const;
export type MandateAttemptKind = (typeof MANDATE_ATTEMPT_KINDS)[number];

/** What the rules read of a charge's settlement try (contracts/pix-automatico.ts GatewayMandateAttempt). */
export interface AttemptOutcome {
  status: MandateAttemptStatus;
  rejection: { code: string } | null;
}

// ── Which prices ───────────────────────────────────────────────────────────────────────────────

const PERIODICITY_MONTHS: Record<Exclude<MandatePeriodicity, 'weekly'>, number> = {
  monthly: 1,
  quarterly: 3,
  semiannual: 6,
  yearly: 12,
};

/**
 * The BCB's periodicity of a price's interval: weekly, monthly, quarterly, semiannual or yearly; null for
 * any other (daily, every two weeks, every two months…), which Pix Automático cannot bill.
 */
export function periodicityOf(interval: PeriodInterval, count: number): MandatePeriodicity | null {
  if (interval === 'week' && count === 1) return 'weekly';
  if (interval === 'year' && count === 1) return 'yearly';
  if (interval !== 'month') return null;
  const found = Object.entries(PERIODICITY_MONTHS).find(([, months]) => months === count);
  return found ? (found[0] as MandatePeriodicity) : null;
}

/**
 * The nominal due date of cycle `cycle` (1 is the mandate's start date): months keep the start's day,
 * clamped to the month's end, as the subscription's periods do (domain/periods.ts).
 */
export function cycleDueDate(startDate: string, periodicity: MandatePeriodicity, cycle: number): string {
  const start = new Date(`${startDate}T00:00:00Z`);
  if (periodicity === 'weekly') return addDays(startDate, 7 * (cycle - 1));
  return isoDate(addInterval(start, 'month', PERIODICITY_MONTHS[periodicity] * (cycle - 1)));
}

/** The business day a charge due on `dueDate` settles on (ajusteDiaUtil: a holiday moves it forward). */
export const settlementDateOf = (dueDate: string) => onOrAfterBusinessDay(dueDate);

// ── The window a charge is sent in ─────────────────────────────────────────────────────────────

/** A cycle's charge reaches the payer's bank no earlier than ten days before its due date… */
export const CHARGE_WINDOW_OPENS_DAYS = 10;
/** …and no later than two (the PSPs' documented window, from the BCB's rules). */
export const CHARGE_WINDOW_CLOSES_DAYS = 2;
/** When it is sent, if it can be: four days before, as the PSPs that publish a date do. */
export const CHARGE_LEAD_DAYS = 4;

/** The first and last day a charge due on `dueDate` may be sent. */
export function chargeWindow(dueDate: string): { opens: string; closes: string } {
  return { opens: addDays(dueDate, -CHARGE_WINDOW_OPENS_DAYS), closes: addDays(dueDate, -CHARGE_WINDOW_CLOSES_DAYS) };
}

/**
 * The day to send a charge due on `dueDate`, from `today` on: its lead day, or today when that has
 * passed but the window is still open; null when the window has closed (the cycle cannot be charged).
 */
export function chargeSendDate(dueDate: string, today: string): string | null {
  const { opens, closes } = chargeWindow(dueDate);
  const preferred = addDays(dueDate, -CHARGE_LEAD_DAYS);
  const day = today <= preferred ? preferred : today;
  return day >= opens && day <= closes ? day : null;
}

export const isInChargeWindow = (dueDate: string, sentOn: string) => {
  const { opens, closes } = chargeWindow(dueDate);
  return sentOn >= opens && sentOn <= closes;
};

// ── Later-day retries ──────────────────────────────────────────────────────────────────────────

/** PERMITE_3R_7D: at most three more tries… */
export const MAX_RETRIES = 3;
/** …each settling within seven calendar days after the charge's settlement date. */
export const RETRY_SPAN_DAYS = 7;

/**
 * The settlement dates of the retries a charge may have: the first business day after its settlement
 * date, the first on or after three days after it, and the last on or before seven days after it;
 * each a business day, none twice, none on or after the next cycle's settlement date (a retry never
 * reaches into the next cycle). None when the mandate's policy allows none.
 */
export function retryDates(dueDate: string, nextDueDate: string | null, policy: MandateRetryPolicy): string[] {
  if (policy === 'none') return [];
  const settles = settlementDateOf(dueDate);
  const last = addDays(settles, RETRY_SPAN_DAYS);
  const candidates = [nextBusinessDay(settles), onOrAfterBusinessDay(addDays(settles, 3)), onOrBeforeBusinessDay(last)];
  const nextSettles = nextDueDate === null ? null : settlementDateOf(nextDueDate);
  const dates: string[] = [];
  for (const day of candidates) {
    if (day <= settles || day > last || dates.includes(day)) continue;
    if (nextSettles !== null && day >= nextSettles) continue;
    dates.push(day);
  }
  return dates.slice(0, MAX_RETRIES);
}

/** Whether `date` is a retry day a receiver may ask for (the gateway's own check of a retry request). */
export function isAllowedRetryDate(dueDate: string, date: string, policy: MandateRetryPolicy): boolean {
  if (policy === 'none' || !isBusinessDay(date)) return false;
  const span = daysBetween(settlementDateOf(dueDate), date);
  return span >= 1 && span <= RETRY_SPAN_DAYS;
}

/**
 * Rejection codes that end the charge itself: no retry can mend them (the BCB's CobRTentativas: AC05
 * closed account, AM09 wrong amount, DENC payer not the mandate's, DS27 participant not registered,
 * DTED, MIDI, MSUC, NITX, RC09). The others (AB10 payer's bank failed, AC06 blocked account, AM02
 * above the payer's maximum, …) and an attempt that ran out of funds (expired) may be retried.
 */
export const FINAL_REJECTIONS: readonly string[] = [
  'AC05',
  'AM09',
  'DENC',
  'DS27',
  'DTED',
  'MIDI',
  'MSUC',
  'NITX',
  'RC09',
];

/** The reason a failed attempt gives (its rejection code, or `insufficient_funds` when it ran out of day). */
export function attemptFailureReason(attempt: AttemptOutcome): string {
  return attempt.rejection?.code ?? 'insufficient_funds';
}

/** Whether a failed attempt leaves the charge open to a retry (a final rejection does not). */
export const isRetryableFailure = (attempt: AttemptOutcome) =>
  attempt.status === 'expired' ||
  (attempt.status === 'rejected' && !FINAL_REJECTIONS.includes(attempt.rejection?.code ?? ''));

// ── States that only move forward ─────────────────────────────────────────────────────────────

const MANDATE_RANK: Record<MandateStatus, number> = { created: 0, approved: 1, rejected: 2, expired: 2, cancelled: 2 };

/** Which of two mandate states is the later one: a stale notice never moves a mandate back. */
export function laterMandateStatus(current: MandateStatus, incoming: MandateStatus): MandateStatus {
  if (MANDATE_RANK[incoming] > MANDATE_RANK[current]) return incoming;
  return current;
}

export const isMandateFinal = (status: MandateStatus) => MANDATE_RANK[status] === 2;

const CHARGE_RANK: Record<MandateChargeStatus, number> = {
  created: 0,
  active: 1,
  completed: 2,
  expired: 2,
  rejected: 2,
  cancelled: 2,
};

export function laterChargeStatus(current: MandateChargeStatus, incoming: MandateChargeStatus): MandateChargeStatus {
  if (CHARGE_RANK[incoming] > CHARGE_RANK[current]) return incoming;
  return current;
}

export const isChargeFinal = (status: MandateChargeStatus) => CHARGE_RANK[status] === 2;

// ── Amounts ─────────────────────────────────────────────────────────────────────────────────────

/**
 * Whether a mandate takes a charge of `amount` cents: a fixed mandate only its amount; otherwise no
 * less than the receiver's minimum and no more than the payer's maximum, when they set one.
 */
export function mandateAllows(
  mandate: { fixedAmount: number | null; minimumAmount: number | null; payerMaximum: number | null },
  amount: number,
): boolean {
  if (mandate.fixedAmount !== null) return amount === mandate.fixedAmount;
  if (mandate.minimumAmount !== null && amount < mandate.minimumAmount) return false;
  return mandate.payerMaximum === null || amount <= mandate.payerMaximum;
}

// ── Keys ───────────────────────────────────────────────────────────────────────────────────────

/** The mandate of a subscription: one per subscription, however often its creation is retried. */
export const mandateKey = (subscriptionId: string) => `subscription:${subscriptionId}:mandate`;
/** A cycle's charge: one live charge per subscription and period. */
export const mandateChargeKey = (subscriptionId: string, period: number) =>
  `subscription:${subscriptionId}:period:${period}:mandate-charge`;
/** The n-th retry (1–3) of a period's charge. */
export const mandateRetryKey = (subscriptionId: string, period: number, n: number) =>
  `${mandateChargeKey(subscriptionId, period)}:retry:${n}`;
export const mandateCancelKey = (subscriptionId: string) => `subscription:${subscriptionId}:mandate-cancel`;

// ── The subscription's cycles ───────────────────────────────────────────────────────────────────

/** Brasília's offset (UTC−3 all year since 2019): a cycle's dates are days there. */
const BRASILIA_OFFSET_MS = -3 * 3_600_000;

/** The day in Brasília of an instant (ms). */
export const brasiliaDate = (ms: number) => new Date(ms + BRASILIA_OFFSET_MS).toISOString().slice(0, 10);

/** The instant of `hour`:00 in Brasília on `date`. */
export const brasiliaTime = (date: string, hour: number) =>
  Date.parse(`${date}T00:00:00Z`) + hour * 3_600_000 - BRASILIA_OFFSET_MS;

/** The hour a cycle's charge is sent on its send day. */
export const SEND_HOUR = 9;
/**
 * The hour an attempt's outcome is read on its settlement day when no notice came first: the payer's
 * bank tries through the day (a payer with no funds in the morning may pay in the evening), so never
 * before its evening.
 */
export const READ_HOUR = 22;
/** An attempt still unsettled at READ_HOUR is asked again this much later, until it settles. */
export const REREAD_MS = 12 * 3_600_000;

/**
 * The due date of a subscription's period `period` that starts at `periodStart` (the previous period's
 * end): the day in Brasília of that instant. The period's charge is for that day.
 */
export const periodDueDate = (periodStart: number) => brasiliaDate(periodStart);

/** Why a cycle's charge could not be sent: the mandate no longer takes charges, or the window closed. */
export const MANDATE_NOT_ACTIVE = 'mandate_not_active';
export const CHARGE_WINDOW_MISSED = 'charge_window_missed';

/**
 * A Pix Automático checkout's mandate terms (journey 3): its periodicity, and its start, the estimated
 * day of the first charge it takes: the day in Brasília the first period, paid by the QR code, ends.
 */
export function checkoutMandateTerms(
  recurring: { interval: PeriodInterval; intervalCount: number; billing: string } | null,
  now: number,
): { periodicity: MandatePeriodicity; startDate: string } | null {
  if (recurring?.billing !== 'pix_automatico') return null;
  const periodicity = periodicityOf(recurring.interval, recurring.intervalCount);
  if (!periodicity) return null;
  const periodEnd = addInterval(new Date(now), recurring.interval, recurring.intervalCount).getTime();
  return { periodicity, startDate: brasiliaDate(periodEnd) };
}
