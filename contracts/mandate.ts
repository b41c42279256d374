import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { MandateRequestJourney, PayerBankAccount } from '../domain/mandate-requests.ts';
import type { MandateStatus } from '../domain/pix-automatico.ts';

/**
 * A mandate asked of an existing subscription's payer (decision 0098), run by its own workflow
 * (workflows/mandate.ts, id `mandate:<our mandate id>`): created at the gateway and recorded, then
 * waiting for the payer's answer; approved, the subscription's workflow adopts it.
 */

export interface MandateWorkflowInput {
  /** Ours, chosen by the API: the workflow's id and the row's. */
  mandateId: string;
  organizationId: string;
  subscriptionId: string;
  customerId: string;
  journey: MandateRequestJourney;
  /** By when the payer must answer (ISO): journey 1's request expires then; journey 2's QR code is withdrawn. */
  answerBy: string;
  /** Journey 1: the payer's bank account the request is pushed to, where the API was given it. */
  payerAccount?: PayerBankAccount | null;
}

/** The mandate as the API answers it (use-cases/schemas/mandates.ts mandateEventData). */
export type MandateRecord = Record<string, unknown> & { id: string; status: MandateStatus };

/** What became of the mandate: its final status, or `not_created` when the gateway refused it. */
export type MandateOutcome = MandateStatus | 'not_created';
export type MandateWorkflow = (input: MandateWorkflowInput) => Promise<MandateOutcome>;

/** Answered once the mandate is created at the gateway and recorded (or refused). */
export const mandateCreationUpdate = defineUpdate<MandateRecord>('mandateCreation');
/**
 * The customer withdraws the mandate while it still waits for the payer (the portal, decision 0101): the
 * receiver cancels it at the gateway (SLCR). Answered with what became of it: `cancelled`, or the answer
 * the payer gave first (the update then changes nothing).
 */
export const mandateWithdrawUpdate = defineUpdate<MandateOutcome>('mandateWithdraw');
/** The gateway notified a change of the mandate: the workflow asks the gateway. */
export const mandateAnswerSignal = defineSignal('mandateNotice');

/** The creation's refusal: the subscription got a live mandate meanwhile (another request won). */
export const MANDATE_EXISTS = 'mandate_exists';

/** The mandate's status as the gateway has it now, written with its events. */
export interface MandateSight {
  status: MandateStatus;
  /** YYYY-MM-DD: the first due date it bills. */
  startDate: string;
}

export interface MandateActivities {
  /**
   * Creates the mandate at the gateway (keyed by our id) and writes our row in its `created` state, with
   * mandate.created. `at`: the workflow's time, from which the first due date it bills is chosen.
   */
  requestMandate(input: MandateWorkflowInput & { at: string }): Promise<MandateRecord>;
  /** The mandate as the gateway has it now, written (with mandate.<status> when it moved). */
  readRequestedMandate(mandateId: string): Promise<MandateSight>;
  /** The receiver withdraws a mandate the payer did not answer in time (or whose subscription ended). */
  withdrawMandate(mandateId: string): Promise<MandateSight>;
}
