import { z } from 'zod';
import { emailAddress, freeValue, nonBlank } from '../../use-cases/schemas/common.ts';
import { storedCard } from '../../domain/card-data.ts';
import type { GatewayTransaction } from '../../gateway/port.ts';
import { maskEmail, maskName } from '../../domain/personal-data.ts';

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

/** The spec's shape for a reader without a credential of the transaction's organization: personal fields masked. */
export function maskedTransaction(body: TransactionBody): TransactionBody {
  return {
    ...body,
    card: body.card && { ...body.card, holder_name: maskName(body.card.holder_name)! },
    checkout: body.checkout && {
      ...body.checkout,
      customer_email: maskEmail(body.checkout.customer_email),
      customer_name: maskName(body.checkout.customer_name),
    },
    buyer: body.buyer && {
      first_name: maskName(body.buyer.first_name),
      last_name: maskName(body.buyer.last_name),
      email: maskEmail(body.buyer.email),
    },
  };
}

export const transactionParams = z.object({ transaction_id: z.string().min(1).max(200) });

/** Splits a full name the way the spec's buyer object wants it. */
export function buyerNames(name: string | null | undefined) {
  const parts = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { first_name: null, last_name: null };
  return { first_name: parts[0]!, last_name: parts.length > 1 ? parts.slice(1).join(' ') : null };
}

/** The stored card (snake_case, see storedCard) or the gateway's card, as the spec's card object. */
export function cardOf(card: GatewayTransaction['card'] | Record<string, unknown> | null) {
  if (!card) return undefined;
  const c =
    'holderName' in card
      ? storedCard(card as NonNullable<GatewayTransaction['card']>)
      : (card as Record<string, string>);
  return {
    brand: String(c.brand),
    last4: String(c.last4),
    first4: String(c.first4),
    holder_name: String(c.holder_name),
    expiration_month: String(c.expiration_month),
    expiration_year: String(c.expiration_year),
  };
}

const digits = z.string().regex(/^\d+$/, 'digits only');

/** POST /transactions/direct: the spec's body; card fields use the gateway's names (card_number, security_code). */
export const directTransactionBody = z.strictObject({
  seller_id: z.string().min(1).max(100),
  amount: z.number().int().positive(),
  checkout_id: z.string().optional(),
  customer_email: emailAddress().optional(),
  customer_tax_id: digits.max(14).optional(),
  gateway_buyer_id: z.string().min(1).max(100).optional(),
  installments: z.number().int().min(1).max(12).default(1),
  payment_type: z.enum(['credit', 'pix']).default('credit'),
  discount_code: nonBlank(100).optional(),
  customer_billing_address: z.record(z.string(), freeValue).optional(),
  card: z
    .strictObject({
      card_number: digits.min(12).max(19),
      holder_name: nonBlank(100),
      expiration_month: z.string().regex(/^(0?[1-9]|1[0-2])$/),
      expiration_year: z.string().regex(/^\d{2}(\d{2})?$/),
      security_code: digits.min(3).max(4),
    })
    .optional()
    .meta({
      description:
        'Card data, tokenized by our server: the sandbox, or a live deployment with ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE=true ' +
        '(422 card_data_refused otherwise). Send card or card_token, not both.',
    }),
  card_token: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        "Instead of card (our addition): the single-use token the gateway's browser script made (Mercado Pago: " +
        "MercadoPago.js createCardToken; the sandbox: the simulated gateway's script, same shape)",
    }),
});
export type DirectTransactionBody = z.infer<typeof directTransactionBody>;

export const directTransactionResponse = z.object({
  transaction_id: z.string(),
  status: z.enum(['new', 'pending', 'pre_authorized', 'succeeded', 'failed', 'canceled']),
  authorization_code: z.string().nullable(),
  amount: z.number().int().describe('What the buyer is charged, installment interest included'),
  installments: z.number().int(),
  decline_reason: z.string().optional().describe('Only on failure'),
  payment_method: z.object({
    type: z.enum(['credit', 'pix']),
    brand: z.string().nullable(),
    last4: z.string().nullable(),
  }),
  pix: z
    .object({
      qr_code: z.string(),
      qr_code_image: z.string(),
      expires_at: z.string(),
      url: z.string().optional().describe("The gateway's own page for paying the pix, where it has one"),
    })
    .optional(),
});
