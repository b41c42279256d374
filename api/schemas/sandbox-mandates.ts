import { z } from 'zod';
import { PIX_PAYER_PERSONAS } from '../../contracts/pix-automatico.ts';
import { wireMandateCharge } from '../../gateway/http-pix-automatico.ts';

/** The sandbox's Pix Automático payer and bank (api/routes/sandbox-mandates.ts) on the wire. */

export const authorizeMandateBody = z.strictObject({
  persona: z
    .enum(PIX_PAYER_PERSONAS)
    .describe(
      'How the payer answers and pays: approves; rejects_authorization; lowers_maximum (a cent under the ' +
        "amount, or the receiver's minimum); revokes (before the second cycle settles); no_funds_morning; " +
        'no_funds_until_retry; closed_account',
    ),
});

export const payerMaximumBody = z.strictObject({
  maximum: z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .describe('The most the payer allows per charge, in cents; null for no maximum'),
});

export const settleMandateChargesBody = z.strictObject({
  /** A calendar date (JSON Schema `format: date`): a day that does not exist is a 400. */
  as_of: z.iso.date().describe('YYYY-MM-DD: every attempt settling on or before this day is settled'),
});

export const settledMandateCharges = z.object({
  items: z
    .array(wireMandateCharge)
    .describe("The charges that changed, in the gateway's own shape (its ids: gateway_charge_id on ours)"),
});
