import { createHash } from 'node:crypto';
import type {
  MandateAttemptKind,
  MandateAttemptStatus,
  MandateCancelledBy,
  MandateChargeStatus,
  MandateJourney,
  MandatePeriodicity,
  MandateRequestStatus,
  MandateRetryPolicy,
  MandateStatus,
} from '../contracts/pix-automatico.ts';
import type {
  bcbCobRStatus,
  bcbPeriodicidade,
  bcbPoliticaRetentativa,
  bcbRecStatus,
  bcbSolicitante,
  bcbSolicRecStatus,
  bcbTentativaStatus,
  bcbTipoJornada,
  bcbTipoTentativa,
} from './bcb-pix-automatico-schemas.ts';
import { GatewayError } from './port.ts';

/**
 * Pix Automático's words both ways, ours (domain/pix-automatico.ts) and the BCB's (bacen/pix-api
 * openapi.yaml 2.9), and its amounts: integer cents and the BCB's "123.45".
 */

// ── Amounts: cents ↔ "12.34", never through a float ─────────────────────────────────────────────

const AMOUNT = /^(\d{1,10})\.(\d{2})$/;
const MAX_CENTS = 999_999_999_999; // "9999999999.99", the pattern's largest

/** Integer cents → the BCB's "123.45". */
export function bcbAmountOf(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0 || cents > MAX_CENTS) {
    throw new GatewayError(`Pix Automático: ${cents} is not an amount in whole cents the BCB can carry`, false);
  }
  const digits = String(cents).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** The BCB's "123.45" → integer cents. */
export function centsOf(amount: string): number {
  const match = AMOUNT.exec(amount);
  if (!match) throw new GatewayError(`Pix Automático: "${amount}" is not an amount of reais with two decimals`, false);
  return Number(match[1]) * 100 + Number(match[2]);
}

export const centsOrNull = (amount: string | undefined) => (amount === undefined ? null : centsOf(amount));

// ── Words ────────────────────────────────────────────────────────────────────────────────────────

/**
 * One table per pair of words, ours → the BCB's; the BCB's → ours (OUR_WORDS) is derived from it. Each
 * table covers every word of ours, and each BCB word is one of the specification's (its enum in
 * bcb-pix-automatico-schemas.ts), so neither side can drift.
 */
export const BCB_WORDS = {
  mandateStatus: {
    created: 'CRIADA',
    approved: 'APROVADA',
    rejected: 'REJEITADA',
    expired: 'EXPIRADA',
    cancelled: 'CANCELADA',
  } satisfies Record<MandateStatus, BcbWord<typeof bcbRecStatus>>,
  periodicity: {
    weekly: 'SEMANAL',
    monthly: 'MENSAL',
    quarterly: 'TRIMESTRAL',
    semiannual: 'SEMESTRAL',
    yearly: 'ANUAL',
  } satisfies Record<MandatePeriodicity, BcbWord<typeof bcbPeriodicidade>>,
  retryPolicy: {
    none: 'NAO_PERMITE',
    three_in_seven_days: 'PERMITE_3R_7D',
  } satisfies Record<MandateRetryPolicy, BcbWord<typeof bcbPoliticaRetentativa>>,
  journey: {
    journey_1: 'JORNADA_1',
    journey_2: 'JORNADA_2',
    journey_3: 'JORNADA_3',
    journey_4: 'JORNADA_4',
    pending: 'AGUARDANDO_DEFINICAO',
  } satisfies Record<MandateJourney, BcbWord<typeof bcbTipoJornada>>,
  cancelledBy: {
    payer_psp: 'PSP_PAGADOR',
    payer: 'USUARIO_PAGADOR',
    receiver_psp: 'PSP_RECEBEDOR',
    receiver: 'USUARIO_RECEBEDOR',
  } satisfies Record<MandateCancelledBy, BcbWord<typeof bcbSolicitante>>,
  requestStatus: {
    created: 'CRIADA',
    sent: 'ENVIADA',
    received: 'RECEBIDA',
    rejected: 'REJEITADA',
    accepted: 'ACEITA',
    expired: 'EXPIRADA',
    cancelled: 'CANCELADA',
  } satisfies Record<MandateRequestStatus, BcbWord<typeof bcbSolicRecStatus>>,
  chargeStatus: {
    created: 'CRIADA',
    active: 'ATIVA',
    completed: 'CONCLUIDA',
    expired: 'EXPIRADA',
    rejected: 'REJEITADA',
    cancelled: 'CANCELADA',
  } satisfies Record<MandateChargeStatus, BcbWord<typeof bcbCobRStatus>>,
  attemptKind: {
    scheduled: 'AGND',
    unscheduled: 'NTAG',
    retry: 'RIFL',
  } satisfies Record<MandateAttemptKind, BcbWord<typeof bcbTipoTentativa>>,
  attemptStatus: {
    requested: 'SOLICITADA',
    scheduled: 'AGENDADA',
    paid: 'PAGA',
    cancelled: 'CANCELADA',
    rejected: 'REJEITADA',
    expired: 'EXPIRADA',
  } satisfies Record<MandateAttemptStatus, BcbWord<typeof bcbTentativaStatus>>,
} as const;

type BcbWord<E extends { options: readonly string[] }> = E['options'][number];
type Inverted<M extends Record<string, string>> = { [K in keyof M as M[K]]: K };
type OurWords = { [P in keyof typeof BCB_WORDS]: Inverted<(typeof BCB_WORDS)[P]> };

/** The BCB's words → ours, each table of BCB_WORDS turned around. */
export const OUR_WORDS = Object.fromEntries(
  Object.entries(BCB_WORDS).map(([pair, words]) => [
    pair,
    Object.fromEntries(Object.entries(words).map(([ours, bcb]) => [bcb, ours])),
  ]),
) as OurWords;

/** The names Efí's adapter reads them by. */
export const BCB_PERIODICITY = BCB_WORDS.periodicity;
export const BCB_RETRY_POLICY = BCB_WORDS.retryPolicy;

// ── Ids as the BCB forms them, derived from our keys (a repeated creation forms the same id) ───

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` (≤ 64) letters and digits drawn from a key: the same key, the same characters. */
export function alphanumericOf(key: string, length: number): string {
  const bytes = createHash('sha512').update(key).digest();
  return Array.from(bytes.subarray(0, length), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

const yyyyMMdd = (date: string) => date.slice(0, 10).replaceAll('-', '');

/** ID Recorrência: R; R or N (retries allowed or not); the creator's ISPB; yyyyMMdd; 11 from the key. */
export const bcbRecIdOf = (retryPolicy: MandateRetryPolicy, ispb: string, createdOn: string, key: string) =>
  `R${retryPolicy === 'none' ? 'N' : 'R'}${ispb}${yyyyMMdd(createdOn)}${alphanumericOf(key, 11)}`;

/** ID Solicitação da Recorrência: SC; the sender's ISPB; yyyyMMdd; 11 from the key. */
export const bcbSolicRecIdOf = (ispb: string, createdOn: string, key: string) =>
  `SC${ispb}${yyyyMMdd(createdOn)}${alphanumericOf(key, 11)}`;

/** EndToEndId: E; the payer's ISPB; yyyyMMddHHmm in UTC; 11 from the key (32 characters). */
export function bcbEndToEndIdOf(ispb: string, at: string, key: string): string {
  const utc = new Date(at).toISOString();
  return `E${ispb}${yyyyMMdd(utc)}${utc.slice(11, 13)}${utc.slice(14, 16)}${alphanumericOf(key, 11)}`;
}

/** A txid (26–35 letters and digits; the receiver's to choose): 35 from the key. */
export const bcbTxidOf = (key: string) => alphanumericOf(key, 35);

/** A devolução's id (1–35 letters and digits; the receiver's to choose): 35 from our refund's key. */
export const bcbDevolucaoIdOf = (key: string) => alphanumericOf(`devolucao:${key}`, 35);

/** A devolução's rtrId: D; the receiver's ISPB; yyyyMMddHHmm in UTC; 11 from its e2eid and id (32 characters). */
export function bcbReturnIdOf(ispb: string, at: string, endToEndId: string, id: string): string {
  return `D${bcbEndToEndIdOf(ispb, at, `${endToEndId}:${id}`).slice(1)}`;
}
