import { z } from 'zod';
import {
  MANDATE_ATTEMPT_KINDS,
  MANDATE_ATTEMPT_STATUSES,
  MANDATE_CANCELLED_BY,
  MANDATE_CHARGE_STATUSES,
  MANDATE_JOURNEYS,
  MANDATE_PERIODICITIES,
  MANDATE_REQUEST_STATUSES,
  MANDATE_RETRY_POLICIES,
  MANDATE_STATUSES,
} from '../../domain/pix-automatico.ts';
import {
  mandateChargeEventData,
  mandateEventData,
  presentMandateAttempt,
  presentMandateDetail,
} from '../../use-cases/schemas/mandates.ts';
import { DEFAULT_MANDATE_ANSWER_DAYS, MAX_MANDATE_ANSWER_DAYS } from '../../domain/mandate-requests.ts';
import { listQuery, paginated } from '../../use-cases/schemas/common.ts';
import type { Assert, Same } from './record-checks.ts';

/** Pix Automático's mandates and their cycles' charges on the wire (decision 0096). */

const date = z.string().describe('YYYY-MM-DD');
const timestamp = z.string();
const cents = z.number().int();

export const mandateAttemptSchema = z.object({
  settlement_date: date.describe('The business day it settles on (YYYY-MM-DD)'),
  kind: z
    .enum(MANDATE_ATTEMPT_KINDS)
    .describe('scheduled: sent in time; unscheduled: sent late; retry: a later-day retry'),
  status: z.enum(MANDATE_ATTEMPT_STATUSES),
  end_to_end_id: z.string(),
  rejection_code: z.string().nullable().describe("The BCB's rejection code (AM02, AC05…); null when none"),
  failure_reason: z
    .string()
    .nullable()
    .describe('Why it failed: its rejection code, or insufficient_funds when it ran out of day; null unless it failed'),
  failure_description: z.string().nullable().describe('The failure in words'),
});
type AttemptMatches = Assert<Same<z.infer<typeof mandateAttemptSchema>, ReturnType<typeof presentMandateAttempt>>>;

export const mandateChargeSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  mandate_id: z.string(),
  subscription_id: z.string(),
  gateway_charge_id: z.string(),
  period: z.number().int().describe("The subscription's period it bills"),
  due_date: date,
  settlement_date: date.describe('The business day it settles on (YYYY-MM-DD)'),
  amount: cents.describe('In cents'),
  status: z.enum(MANDATE_CHARGE_STATUSES),
  retries_requested: z.number().int().describe('Later-day retries asked for (0–3)'),
  failure_reason: z.string().nullable().describe("The last failed attempt's code, or insufficient_funds"),
  failure_description: z.string().nullable(),
  attempts: z.array(mandateAttemptSchema).describe('Its settlement tries, in settlement order'),
  paid_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
type ChargeMatches = Assert<Same<z.infer<typeof mandateChargeSchema>, ReturnType<typeof mandateChargeEventData>>>;

const reason = z.object({ code: z.string(), description: z.string() });

export const mandateSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  subscription_id: z.string(),
  customer_id: z.string(),
  gateway_mandate_id: z.string(),
  status: z.enum(MANDATE_STATUSES),
  journey: z.enum(MANDATE_JOURNEYS).describe('How the payer authorized it (journey_1–4), or pending'),
  periodicity: z.enum(MANDATE_PERIODICITIES),
  retry_policy: z.enum(MANDATE_RETRY_POLICIES),
  start_date: date,
  end_date: date.nullable(),
  fixed_amount: cents.nullable().describe('Every charge is this amount (cents); null when it varies'),
  minimum_amount: cents.nullable(),
  payer_maximum: cents.nullable().describe('The most the payer allows per charge (cents); null when unlimited'),
  currency: z.string().describe('Upper case'),
  object_label: z.string().describe("What the payer's bank shows"),
  debtor: z.object({ name: z.string(), tax_id: z.string() }),
  qr_code: z.string().nullable().describe('The copy-and-paste QR code while it waits for the payer'),
  request: z
    .object({
      id: z.string().describe("The request's id at the payer's bank (the BCB's idSolicRec)"),
      status: z.enum(MANDATE_REQUEST_STATUSES),
      expires_at: timestamp.describe('When the request expires unanswered'),
    })
    .nullable()
    .describe("Journey 1: the request pushed to the payer's bank, as last seen; null for the other journeys"),
  rejection: reason.nullable(),
  cancellation: reason.extend({ by: z.enum(MANDATE_CANCELLED_BY).nullable() }).nullable(),
  history: z.array(z.object({ status: z.enum(MANDATE_STATUSES), at: timestamp })),
  approved_at: timestamp.nullable(),
  ended_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
type MandateMatches = Assert<Same<z.infer<typeof mandateSchema>, ReturnType<typeof mandateEventData>>>;

export const mandateDetailSchema = mandateSchema.extend({
  charges: z.array(mandateChargeSchema).describe('Its charges, by period, each with its attempts'),
});
type DetailMatches = Assert<Same<z.infer<typeof mandateDetailSchema>, ReturnType<typeof presentMandateDetail>>>;

export type MandateSchemasMatch = [AttemptMatches, ChargeMatches, MandateMatches, DetailMatches];

export const listMandatesQuery = listQuery(['created_at']).extend({
  subscription_id: z.string().optional(),
  customer_id: z.string().optional(),
  status: z.enum(MANDATE_STATUSES).optional(),
});
export const mandatePage = paginated(mandateSchema);

/** POST /subscriptions/{id}/mandates: which journey asks the payer, and how long they have to answer. */
export const createMandateBody = z.strictObject({
  journey: z
    .enum(['request', 'qr_code', 'with_renewal'])
    .describe(
      "request: journey 1, a request pushed to the payer's bank (they answer in its app); qr_code: journey 2, a QR " +
        'code that only authorizes (show it to the payer); with_renewal: journey 4, the next renewal checkout’s pix ' +
        'QR code pays the renewal and offers the mandate (a subscription renewed by pix)',
    ),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(MAX_MANDATE_ANSWER_DAYS)
    .default(DEFAULT_MANDATE_ANSWER_DAYS)
    .describe(
      'How long the payer has to answer: the request expires then; an unanswered QR code is withdrawn (cancelled by ' +
        `the receiver) shortly after; with_renewal: days after the renewal's due date. ${DEFAULT_MANDATE_ANSWER_DAYS} by default`,
    ),
  payer_account: z
    .strictObject({
      ispb: z.string().describe("The payer's bank's participant code (ISPB): 8 digits or capital letters"),
      agency: z.string().describe('1–4 digits'),
      account: z.string().describe('1–20 digits, its check digit included, no hyphen'),
    })
    .optional()
    .describe(
      "Journey request only: the payer's bank account the request is pushed to, held by the customer's CPF/CNPJ. " +
        'Required where the gateway cannot find the account itself (422 payer_account_required without it); the ' +
        'sandbox takes the request without it',
    ),
});
export const mandateParams = z.object({ id: z.string().max(64) });
