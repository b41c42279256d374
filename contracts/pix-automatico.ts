/**
 * Pix Automático's records as the gateway, the workflows and the activities hand them to each other:
 * plain data, in our words, modelled on the Banco Central's Pix API (bacen/pix-api openapi.yaml 2.9:
 * `rec` is a mandate, `solicrec` its request, `cobr` a cycle's charge with its `tentativas`).
 * gateway/port.ts re-exports them as part of its port. The BCB's own words (CRIADA, PERMITE_3R_7D, …)
 * appear only in the adapters and the simulator's wire payloads (gateway/bcb-pix-automatico.ts maps them).
 */

import type { PaymentSummary } from '../domain/checkout.ts';
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
} from '../domain/pix-automatico.ts';

export type {
  MandateAttemptKind,
  MandateAttemptStatus,
  MandateCancelledBy,
  MandateChargeStatus,
  MandateJourney,
  MandatePeriodicity,
  MandateRequestStatus,
  MandateRetryPolicy,
  MandateStatus,
};

/** A BCB code and its description (rejection of a mandate, a charge or an attempt; a cancellation). */
export interface PixReasonCode {
  code: string;
  description: string;
}

export interface MandateDebtor {
  name: string;
  /** CPF (11 digits) or CNPJ (14), digits only. */
  taxId: string;
  email?: string | null;
}

export interface StatusChange<S extends string> {
  status: S;
  /** RFC 3339. */
  at: string;
}

/** A mandate (`rec`) as the gateway has it now. Amounts in cents. */
export interface GatewayMandate {
  /** The gateway's id (the BCB's idRec, 29 characters). */
  id: string;
  /** Ours: the subscription it bills (vinculo.contrato). */
  reference: string;
  status: MandateStatus;
  journey: MandateJourney;
  /** What the payer's bank shows (vinculo.objeto, ≤ 35 characters). */
  objectLabel: string;
  debtor: MandateDebtor;
  /** YYYY-MM-DD: the first payment's estimated date (calendario.dataInicial). */
  startDate: string;
  /** YYYY-MM-DD or null for an open-ended mandate (calendario.dataFinal). */
  endDate: string | null;
  periodicity: MandatePeriodicity;
  /** valor.valorRec: every charge is this amount; null when the amount varies. */
  fixedAmount: number | null;
  /** valor.valorMinimoRecebedor: the floor under the payer's maximum; null when fixed. */
  minimumAmount: number | null;
  /** The most the payer allows per charge, set (and lowered) in their bank's app; null when unlimited. */
  payerMaximum: number | null;
  retryPolicy: MandateRetryPolicy;
  /** Set when rejected (AP13, AP14). */
  rejection: PixReasonCode | null;
  /** Set when cancelled: who and why (ACCL, CPCL, DCSD, ERSL, FRUD, PCFD, SLCR, SLDB). */
  cancellation: (PixReasonCode & { by: MandateCancelledBy }) | null;
  history: StatusChange<MandateStatus>[];
  /** The QR code's copy-and-paste payload (journeys 2–4), while it is waiting for the payer. */
  qrCode: string | null;
  /** Journey 3: the immediate pix charge (our transaction id at the gateway) that pays the first period. */
  firstPaymentId: string | null;
  /** Journey 1: the request pushed to the payer's bank. */
  request: { id: string; status: MandateRequestStatus; expiresAt: string } | null;
}

/** One settlement try of a cycle's charge. */
export interface GatewayMandateAttempt {
  /** YYYY-MM-DD: the business day it settles on (dataLiquidacao). */
  settlementDate: string;
  kind: MandateAttemptKind;
  status: MandateAttemptStatus;
  endToEndId: string;
  /** Set when rejected; an attempt that ran out of day without funds is `expired` with none. */
  rejection: PixReasonCode | null;
  history: StatusChange<MandateAttemptStatus>[];
}

/** A cycle's charge (`cobr`) as the gateway has it now. */
export interface GatewayMandateCharge {
  /** The gateway's id (the BCB's txid). */
  id: string;
  mandateId: string;
  /** Ours: one per subscription and cycle, so a repeated creation finds the first. */
  reference: string;
  /** YYYY-MM-DD, as asked (calendario.dataDeVencimento); the attempts carry the business day. */
  dueDate: string;
  amount: number;
  status: MandateChargeStatus;
  retryPolicy: MandateRetryPolicy;
  attempts: GatewayMandateAttempt[];
  /** Set when the charge as a whole is rejected or cancelled. */
  rejection: PixReasonCode | null;
  cancellation: (PixReasonCode & { by: MandateCancelledBy }) | null;
  history: StatusChange<MandateChargeStatus>[];
  /** When the paid attempt settled; null until paid. */
  paidAt: string | null;
}

/** Where a refund of a paid charge stands: the BCB's EM_PROCESSAMENTO, DEVOLVIDO, NAO_REALIZADO. */
export type MandateRefundStatus = 'processing' | 'refunded' | 'failed';

/**
 * A refund of a paid cycle's charge: the BCB's pix devolução (PUT /pix/{e2eid}/devolucao/{id}), made
 * against the paid attempt's end-to-end id. Its id is the receiver's, formed from our idempotency key.
 */
export interface GatewayMandateRefund {
  /** The devolução's id (1–35 letters and digits): a repeated key names the same refund. */
  id: string;
  chargeId: string;
  /** The paid attempt's end-to-end id the refund was made against. */
  endToEndId: string;
  /** The refund's own end-to-end id on the rail (rtrId). */
  returnId: string;
  amount: number;
  status: MandateRefundStatus;
  requestedAt: string;
  refundedAt: string | null;
  /** Why it was not made (NAO_REALIZADO's motivo). */
  reason: string | null;
}

/**
 * The payers the sandbox plays (decision 0096), chosen on the mandate when the sandbox authorizes it:
 * approves and pays; rejects the authorization; lowers their maximum below the charge; revokes in their
 * bank's app; has no funds in the morning and pays in the evening; has no funds on the due date and pays
 * at the first retry; has a closed account. A QR code that also carries a charge (journey 3's cob,
 * journey 4's cobv) is paid by every persona: `approves` then accepts the recurrence,
 * `rejects_authorization` declines it (AP14).
 */
export type PixPayerPersona =
  | 'approves'
  | 'rejects_authorization'
  | 'lowers_maximum'
  | 'revokes'
  | 'no_funds_morning'
  | 'no_funds_until_retry'
  | 'closed_account';

export const PIX_PAYER_PERSONAS: readonly PixPayerPersona[] = [
  'approves',
  'rejects_authorization',
  'lowers_maximum',
  'revokes',
  'no_funds_morning',
  'no_funds_until_retry',
  'closed_account',
];

/**
 * A subscription period's charge through its mandate, as the subscription's workflow sees it after each
 * step (activities/mandate-cycles.ts): sent (with the gateway's charge as it stands, and the payment once
 * paid), or not sent and why (the mandate no longer takes charges, the window closed, the gateway refused).
 */
export type MandateCycle =
  | {
      sent: true;
      chargeId: string;
      amount: number;
      currency: string;
      status: MandateChargeStatus;
      retryPolicy: MandateRetryPolicy;
      /** The mandate's: the next period's charge is due one periodicity after this one. */
      periodicity: MandatePeriodicity;
      retriesRequested: number;
      attempts: GatewayMandateAttempt[];
      /** The mandate's state when the charge was read (a payer's revocation ends the cycle). */
      mandateStatus: MandateStatus;
      /** The paid charge as a pix payment of the period (the renewal's record); null until paid. */
      payment: PaymentSummary | null;
    }
  | { sent: false; refusal: string };
