/**
 * Pix Automático's part of the gateway port (gateway/port.ts re-exports it): the mandates (the BCB's
 * `rec`) and their journeys, each cycle's charge (`cobr`) with its retries and refunds, and the
 * sandbox's payer and bank that answer them.
 */
import type {
  GatewayMandate,
  GatewayMandateCharge,
  GatewayMandateRefund,
  MandateDebtor,
  MandatePeriodicity,
  MandateRetryPolicy,
  PixPayerPersona,
} from '../contracts/pix-automatico.ts';

/** What a mandate (`rec`) is created with. Amounts in cents. */
export interface MandateInput {
  /** Ours: the subscription it bills (its contract); a repeated key returns the first mandate. */
  reference: string;
  /** What the payer's bank shows them (≤ 35 characters). */
  objectLabel: string;
  debtor: MandateDebtor;
  /** YYYY-MM-DD of the first cycle's charge (journey 3: of the second, the QR code paying the first). */
  startDate: string;
  endDate: string | null;
  periodicity: MandatePeriodicity;
  /** Every charge this amount; or null with `minimumAmount` (the payer sets a maximum above it). */
  fixedAmount: number | null;
  minimumAmount: number | null;
  retryPolicy: MandateRetryPolicy;
  /**
   * How the payer authorizes it: `journey_1` a request to their bank (expiring at `requestExpiresAt`),
   * `journey_2` a QR code that only authorizes, `journey_3` a QR code that also pays `firstCharge` (an
   * immediate cob), `journey_4` a QR code that pays `dueCharge` (a due-date cobv) and offers the
   * recurrence beside it: the payer pays, and may accept or decline the mandate in the same step.
   */
  journey: 'journey_1' | 'journey_2' | 'journey_3' | 'journey_4';
  requestExpiresAt?: string | null;
  firstCharge?: { amount: number; expiresInSeconds: number } | null;
  /**
   * Journey 1: the payer's account the request is pushed to (the BCB's solicrec `destinatario`, held by
   * the debtor's CPF/CNPJ). Required where the gateway says so (mandateRequestRequires 'payer_account':
   * Efí); a sandbox's payer bank stands in without it.
   */
  payerAccount?: MandatePayerAccount | null;
  /**
   * Journey 4's due-date charge (the BCB's cobv): `amount` cents due on `dueDate` (YYYY-MM-DD, Brasília),
   * still payable `daysPayableAfterDue` days after it (validadeAposVencimento). Its id is the mandate's
   * `firstPaymentId` when created; paid, it is a pix transaction as any other.
   */
  dueCharge?: { amount: number; dueDate: string; daysPayableAfterDue: number } | null;
}

/** A payer's bank account, as a journey 1 request names it. */
export interface MandatePayerAccount {
  /** The payer's bank (its participant's ISPB, 8 characters). */
  ispb: string;
  /** Up to 4 digits. */
  agency: string;
  /** Up to 20 digits, its check digit included. */
  account: string;
}

/** What a gateway needs of a journey 1 request beyond the mandate (see PixAutomatico.mandateRequestRequires). */
export type MandateRequestField = 'payer_account';

/** A cycle's charge (`cobr`): sent within the window before its due date (domain/pix-automatico.ts). */
export interface MandateChargeInput {
  mandateId: string;
  /** Ours: one per subscription and cycle. */
  reference: string;
  /** YYYY-MM-DD; the gateway settles on the next business day when it is not one (ajusteDiaUtil). */
  dueDate: string;
  amount: number;
  description?: string | null;
}

/**
 * Pix Automático (the BCB's recurring pix): mandates the payer authorizes once in their bank's app,
 * and each cycle's charge, which the payer's bank settles on its due date, with the later-day retries
 * the receiver asks for under the mandate's policy. Where a gateway has it (the simulator, Efí); ask
 * with offersPixAutomatico (gateway/capabilities.ts). State changes arrive as callbacks
 * (`mandate.updated`, `mandate_charge.updated`) and are always read back with the getters.
 */
export interface PixAutomatico {
  /**
   * What this gateway needs to push a journey 1 request (`payer_account`: the payer's bank account, which
   * it cannot find by itself); absent or empty: nothing beyond the mandate.
   */
  readonly mandateRequestRequires?: readonly MandateRequestField[];
  createMandate(input: MandateInput, idempotencyKey: string): Promise<GatewayMandate>;
  /** Null when the gateway has no such mandate. */
  getMandate(mandateId: string): Promise<GatewayMandate | null>;
  /** The receiver cancels it (USUARIO_RECEBEDOR, SLCR); a cancelled one is returned as it is. */
  cancelMandate(mandateId: string, idempotencyKey: string): Promise<GatewayMandate>;
  /** A charge for a mandate that is not approved, or an amount it does not allow, is refused (not retryable). */
  createMandateCharge(input: MandateChargeInput, idempotencyKey: string): Promise<GatewayMandateCharge>;
  getMandateCharge(chargeId: string): Promise<GatewayMandateCharge | null>;
  /**
   * A later-day retry of a charge whose last attempt failed (POST /cobr/{txid}/retentativa/{data}):
   * refused (not retryable) when the mandate allows none, three were asked already, or `settlementDate`
   * is not a business day within seven days of the due date.
   */
  retryMandateCharge(chargeId: string, settlementDate: string, idempotencyKey: string): Promise<GatewayMandateCharge>;
  /** Cancels an unpaid charge (the subscription ended); a paid one is refused (not retryable). */
  cancelMandateCharge(chargeId: string, idempotencyKey: string): Promise<GatewayMandateCharge>;
  /**
   * Gives back `amount` cents of a paid charge to its payer (a pix devolução against the paid attempt's
   * end-to-end id). Partial refunds add up to at most the paid amount; a repeated key answers the first
   * refund, never a second one. An unpaid charge or an amount above what is left is refused (not retryable).
   */
  refundMandateCharge(chargeId: string, amount: number, idempotencyKey: string): Promise<GatewayMandateRefund>;
}

/**
 * The sandbox's payer and bank for Pix Automático (the simulator's): the payer answers a mandate as
 * their persona does, and the bank settles the attempts due by a date, each followed by the callbacks.
 */
export interface SandboxPixAutomatico {
  /** The payer reads the QR code or the request and answers as `persona` does (journey 3: pays the first charge). */
  authorizeMandate(mandateId: string, persona: PixPayerPersona): Promise<GatewayMandate>;
  /**
   * The payer's bank settles every attempt whose settlement date is on or before `asOf` (YYYY-MM-DD);
   * with `mandateIds`, only the charges of those mandates (the gateway's ids).
   */
  settleMandateCharges(asOf: string, mandateIds?: readonly string[]): Promise<GatewayMandateCharge[]>;
  /** The payer revokes the mandate in their bank's app (USUARIO_PAGADOR, SLDB). */
  revokeMandate(mandateId: string): Promise<GatewayMandate>;
  /** The payer lowers (or raises) their maximum per charge in their bank's app. */
  setPayerMaximum(mandateId: string, maximum: number | null): Promise<GatewayMandate>;
}
