import { z } from 'zod';
import { date, positiveCents, timestamp } from './http-fields.ts';
import { PIX_PAYER_PERSONAS } from '../contracts/pix-automatico.ts';
import type { GatewayMandate, GatewayMandateCharge } from './port.ts';

/**
 * Pix Automático's sandbox on the gateway's REST protocol (http-protocol.ts): the payer's and their
 * bank's controls (`/v1/_sandbox/…`, which no BCB API has) answer mandates and their cycle charges in
 * snake_case, the port's records (contracts/pix-automatico.ts) key for key, nested objects included,
 * optional fields as explicit nulls; the API's sandbox routes answer the same shapes. Pix Automático
 * itself travels in the BCB's shapes (gateway/http-pix-automatico-bcb.ts).
 */

const cents = z.number().int().nonnegative();
const reason = z.object({ code: z.string(), description: z.string() });
const cancellation = reason.extend({ by: z.enum(['payer_psp', 'payer', 'receiver_psp', 'receiver']) });
const history = <S extends z.ZodType>(status: S) => z.array(z.object({ status, at: timestamp }));
const debtor = z.object({
  name: z.string().min(1),
  tax_id: z.string().regex(/^\d{11}(\d{3})?$/),
  email: z.string().nullish(),
});
const periodicity = z.enum(['weekly', 'monthly', 'quarterly', 'semiannual', 'yearly']);
const retryPolicy = z.enum(['none', 'three_in_seven_days']);
const mandateStatus = z.enum(['created', 'approved', 'rejected', 'expired', 'cancelled']);
const chargeStatus = z.enum(['created', 'active', 'completed', 'expired', 'rejected', 'cancelled']);
const attemptStatus = z.enum(['requested', 'scheduled', 'paid', 'cancelled', 'rejected', 'expired']);

export const wireMandate = z.object({
  id: z.string(),
  reference: z.string(),
  status: mandateStatus,
  journey: z.enum(['journey_1', 'journey_2', 'journey_3', 'journey_4', 'pending']),
  object_label: z.string(),
  debtor,
  start_date: date,
  end_date: date.nullable(),
  periodicity,
  fixed_amount: cents.nullable(),
  minimum_amount: cents.nullable(),
  payer_maximum: cents.nullable(),
  retry_policy: retryPolicy,
  rejection: reason.nullable(),
  cancellation: cancellation.nullable(),
  history: history(mandateStatus),
  qr_code: z.string().nullable(),
  first_payment_id: z.string().nullable(),
  request: z
    .object({
      id: z.string(),
      status: z.enum(['created', 'sent', 'received', 'rejected', 'accepted', 'expired', 'cancelled']),
      expires_at: timestamp,
    })
    .nullable(),
});
export type WireMandate = z.infer<typeof wireMandate>;

export const wireMandateCharge = z.object({
  id: z.string(),
  mandate_id: z.string(),
  reference: z.string(),
  due_date: date,
  amount: cents,
  status: chargeStatus,
  retry_policy: retryPolicy,
  attempts: z.array(
    z.object({
      settlement_date: date,
      kind: z.enum(['scheduled', 'unscheduled', 'retry']),
      status: attemptStatus,
      end_to_end_id: z.string(),
      rejection: reason.nullable(),
      history: history(attemptStatus),
    }),
  ),
  rejection: reason.nullable(),
  cancellation: cancellation.nullable(),
  history: history(chargeStatus),
  paid_at: timestamp.nullable(),
});
export type WireMandateCharge = z.infer<typeof wireMandateCharge>;
export const wireMandateChargeList = z.object({ items: z.array(wireMandateCharge) });

/** Sandbox: the payer who answers the mandate. */
export const wireAuthorizeMandate = z.strictObject({ persona: z.enum(PIX_PAYER_PERSONAS) });
/** Sandbox: the payer's bank settles the attempts due by this day (of these mandates only, when given). */
export const wireSettleMandateCharges = z.strictObject({
  as_of: date,
  mandate_ids: z.array(z.string().min(1).max(64)).max(10_000).optional(),
});
/** Sandbox: the payer's maximum per charge, null for none. */
export const wirePayerMaximum = z.strictObject({ maximum: positiveCents.nullable() });

// ── Keys: the port's camelCase, the wire's snake_case, at every depth ─────────────────────────

const snake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const camel = (key: string) => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

function rekey(value: unknown, name: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rekey(item, name));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [name(key), rekey(item, name)]));
}

/** A port's record on the wire, `undefined` fields as nulls, checked by `schema` (so nothing undeclared leaves). */
function toWire<S extends z.ZodType>(schema: S, value: object): z.infer<S> {
  return schema.parse(JSON.parse(JSON.stringify(rekey(value, snake), (_, v: unknown) => v ?? null)));
}
const fromWire = <T>(value: unknown): T => rekey(value, camel) as T;

export const mandateToWire = (mandate: GatewayMandate): WireMandate => toWire(wireMandate, mandate);
export const mandateFromWire = (wire: WireMandate): GatewayMandate => fromWire(wire);
export const mandateChargeToWire = (charge: GatewayMandateCharge): WireMandateCharge =>
  toWire(wireMandateCharge, charge);
export const mandateChargeFromWire = (wire: WireMandateCharge): GatewayMandateCharge => fromWire(wire);
