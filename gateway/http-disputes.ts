import { z } from 'zod';
import type { GatewayChargeback } from './port.ts';

/**
 * After the sale, on the wire (decision 0079): a chargeback as `GET /v1/chargebacks/:id` answers it,
 * and the bodies of the simulated server's sandbox controls that open and decide one or replace a
 * kept card (the card updater).
 */

export const wireChargeback = z.object({
  id: z.string().min(1),
  transaction_id: z.string().min(1),
  amount: z.number().int().positive(),
  currency: z.string().min(1),
  status: z.enum(['opened', 'won', 'lost']),
});
export type WireChargeback = z.infer<typeof wireChargeback>;

export const chargebackToWire = (c: GatewayChargeback): WireChargeback => ({
  id: c.id,
  transaction_id: c.transactionId,
  amount: c.amount,
  currency: c.currency,
  status: c.status,
});

export const chargebackFromWire = (w: WireChargeback): GatewayChargeback => ({
  id: w.id,
  transactionId: w.transaction_id,
  amount: w.amount,
  currency: w.currency,
  status: w.status,
});

/** `POST /v1/_sandbox/transactions/:id/chargebacks`: all that is left of the payment, or `amount` cents. */
export const wireOpenChargeback = z.strictObject({ amount: z.number().int().positive().nullish() });

/** `POST /v1/_sandbox/chargebacks/:id/decide`. */
export const wireDecideChargeback = z.strictObject({ outcome: z.enum(['won', 'lost']) });

/** `POST /v1/_sandbox/cards/tokens/:id/update`: the card updater's replacement of a kept card. */
export const wireCardUpdate = z.strictObject({
  last4: z.string().regex(/^\d{4}$/),
  expiration_month: z.string().regex(/^\d{2}$/),
  expiration_year: z.string().regex(/^\d{4}$/),
});
