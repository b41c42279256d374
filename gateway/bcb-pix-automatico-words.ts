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

function inverse<K extends string, V extends string>(map: Record<K, V>): Record<V, K> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [v, k])) as Record<V, K>;
}

export const BCB_MANDATE_STATUS = {
  created: 'CRIADA',
  approved: 'APROVADA',
  rejected: 'REJEITADA',
  expired: 'EXPIRADA',
  cancelled: 'CANCELADA',
} as const satisfies Record<MandateStatus, string>;
export const BCB_PERIODICITY = {
  weekly: 'SEMANAL',
  monthly: 'MENSAL',
  quarterly: 'TRIMESTRAL',
  semiannual: 'SEMESTRAL',
  yearly: 'ANUAL',
} as const satisfies Record<MandatePeriodicity, string>;
export const BCB_RETRY_POLICY = {
  none: 'NAO_PERMITE',
  three_in_seven_days: 'PERMITE_3R_7D',
} as const satisfies Record<MandateRetryPolicy, string>;
export const BCB_JOURNEY = {
  journey_1: 'JORNADA_1',
  journey_2: 'JORNADA_2',
  journey_3: 'JORNADA_3',
  journey_4: 'JORNADA_4',
  pending: 'AGUARDANDO_DEFINICAO',
} as const satisfies Record<MandateJourney, string>;
export const BCB_CANCELLED_BY = {
  payer_psp: 'PSP_PAGADOR',
  payer: 'USUARIO_PAGADOR',
  receiver_psp: 'PSP_RECEBEDOR',
  receiver: 'USUARIO_RECEBEDOR',
} as const satisfies Record<MandateCancelledBy, string>;
export const BCB_REQUEST_STATUS = {
  created: 'CRIADA',
  sent: 'ENVIADA',
  received: 'RECEBIDA',
  rejected: 'REJEITADA',
  accepted: 'ACEITA',
  expired: 'EXPIRADA',
  cancelled: 'CANCELADA',
} as const satisfies Record<MandateRequestStatus, string>;
export const BCB_CHARGE_STATUS = {
  created: 'CRIADA',
  active: 'ATIVA',
  completed: 'CONCLUIDA',
  expired: 'EXPIRADA',
  rejected: 'REJEITADA',
  cancelled: 'CANCELADA',
} as const satisfies Record<MandateChargeStatus, string>;
export const BCB_ATTEMPT_KIND = {
  scheduled: 'AGND',
  unscheduled: 'NTAG',
  retry: 'RIFL',
} as const satisfies Record<MandateAttemptKind, string>;
export const BCB_ATTEMPT_STATUS = {
  requested: 'SOLICITADA',
  scheduled: 'AGENDADA',
  paid: 'PAGA',
  cancelled: 'CANCELADA',
  rejected: 'REJEITADA',
  expired: 'EXPIRADA',
} as const satisfies Record<MandateAttemptStatus, string>;

export const OUR_MANDATE_STATUS = inverse(BCB_MANDATE_STATUS);
export const OUR_PERIODICITY = inverse(BCB_PERIODICITY);
export const OUR_RETRY_POLICY = inverse(BCB_RETRY_POLICY);
export const OUR_JOURNEY = inverse(BCB_JOURNEY);
export const OUR_CANCELLED_BY = inverse(BCB_CANCELLED_BY);
export const OUR_REQUEST_STATUS = inverse(BCB_REQUEST_STATUS);
export const OUR_CHARGE_STATUS = inverse(BCB_CHARGE_STATUS);
export const OUR_ATTEMPT_KIND = inverse(BCB_ATTEMPT_KIND);
export const OUR_ATTEMPT_STATUS = inverse(BCB_ATTEMPT_STATUS);

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
