import { z } from 'zod';
import type { GatewayTransaction } from '../../gateway/port.ts';

const timestamp = z.string();

/** The spec's Transaction record, read by its gateway identifier. */
export const transactionSchema = z.object({
  id: z.string().nullable().describe('Our record; null when the transaction is known only to the gateway'),
  transaction_id: z.string().describe('The gateway identifier'),
  status: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  payment_type: z.enum(['credit', 'pix', 'boleto']),
  installments: z.number().int(),
  confirmed_at: timestamp.nullable(),
  created_at: timestamp,
  card: z
    .object({
      brand: z.string(),
      last4: z.string(),
      first4: z.string(),
      holder_name: z.string(),
      expiration_month: z.string(),
      expiration_year: z.string(),
    })
    .optional(),
  transaction_number: z.string(),
  authorization_code: z.string().nullable(),
  checkout: z
    .object({
      id: z.string(),
      status: z.string(),
      amount: z.number().int(),
      currency: z.string(),
      customer_email: z.string().nullable(),
      customer_name: z.string().nullable(),
      success_url: z.string().nullable(),
      product: z.object({ id: z.string(), name: z.string(), description: z.string().nullable() }),
    })
    .nullable(),
  buyer: z
    .object({ first_name: z.string().nullable(), last_name: z.string().nullable(), email: z.string().nullable() })
    .nullable(),
  decline_reason: z.string().nullable(),
  synced_from_gateway: z.boolean().optional().describe('Present, and true, only when read straight from the gateway'),
});
export type TransactionBody = z.infer<typeof transactionSchema>;

export const transactionParams = z.object({ transaction_id: z.string().min(1).max(200) });

/** Splits a full name the way the spec's buyer object wants it. */
export function buyerNames(name: string | null | undefined) {
  const parts = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { first_name: null, last_name: null };
  return { first_name: parts[0]!, last_name: parts.length > 1 ? parts.slice(1).join(' ') : null };
}

export function cardOf(card: GatewayTransaction['card'] | Record<string, unknown> | null) {
  if (!card) return undefined;
  const c = card as Record<string, string>;
  return {
    brand: c.brand!,
    last4: c.last4!,
    first4: c.first4!,
    holder_name: c.holderName ?? c.holder_name!,
    expiration_month: c.expirationMonth ?? c.expiration_month!,
    expiration_year: c.expirationYear ?? c.expiration_year!,
  };
}
