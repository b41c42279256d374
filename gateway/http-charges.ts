import { z } from 'zod';
import { buyerInputFromWire, buyerInputToWire, wireBuyerInput } from './http-buyers.ts';
import { cardInputFromWire, cardInputToWire, wireCardInput } from './http-cards.ts';
import { currency, date, positiveCents, reference } from './http-fields.ts';
import type { BoletoChargeInput, CardChargeInput, PixChargeInput } from './port.ts';

/** `POST /v1/transactions`: one resource for the three payment types, told apart by `payment_type`. */
export const wireCreateTransaction = z.discriminatedUnion('payment_type', [
  z.object({
    payment_type: z.literal('credit'),
    reference,
    amount: positiveCents,
    currency,
    installments: z.number().int().min(1).max(12),
    no_fees_installments: z.boolean(),
    card: z.union([z.object({ token: z.string().min(1) }).strict(), wireCardInput.strict()]),
    buyer_id: z.string().min(1).nullish(),
    capture: z.boolean(),
    description: z.string().max(255).nullish(),
    /** A merchant-initiated charge (initiatedBy `merchant`): approved or refused at once, never held for review. */
    binary_mode: z.boolean().optional(),
  }),
  z.object({
    payment_type: z.literal('pix'),
    reference,
    amount: positiveCents,
    currency,
    buyer: wireBuyerInput.nullish(),
    expires_in_seconds: z.number().int().positive(),
  }),
  z.object({
    payment_type: z.literal('boleto'),
    reference,
    amount: positiveCents,
    currency,
    buyer: wireBuyerInput,
    due_date: date,
  }),
]);
export type WireCreateTransaction = z.infer<typeof wireCreateTransaction>;

export type CreateTransactionInput =
  | { paymentType: 'credit'; input: CardChargeInput }
  | { paymentType: 'pix'; input: PixChargeInput }
  | { paymentType: 'boleto'; input: BoletoChargeInput };

export function createTransactionToWire(c: CreateTransactionInput): WireCreateTransaction {
  switch (c.paymentType) {
    case 'credit': {
      const i = c.input;
      return {
        payment_type: 'credit',
        reference: i.reference,
        amount: i.amount,
        currency: i.currency,
        installments: i.installments,
        no_fees_installments: i.noFeesInstallments,
        card: 'token' in i.card ? { token: i.card.token } : cardInputToWire(i.card),
        buyer_id: i.buyerId ?? null,
        capture: i.capture,
        description: i.description ?? null,
        binary_mode: i.initiatedBy === 'merchant',
      };
    }
    case 'pix': {
      const i = c.input;
      return {
        payment_type: 'pix',
        reference: i.reference,
        amount: i.amount,
        currency: i.currency,
        buyer: i.buyer ? buyerInputToWire(i.buyer) : null,
        expires_in_seconds: i.expiresInSeconds,
      };
    }
    case 'boleto': {
      const i = c.input;
      return {
        payment_type: 'boleto',
        reference: i.reference,
        amount: i.amount,
        currency: i.currency,
        buyer: buyerInputToWire(i.buyer),
        due_date: i.dueDate,
      };
    }
  }
}

export function createTransactionFromWire(w: WireCreateTransaction): CreateTransactionInput {
  switch (w.payment_type) {
    case 'credit':
      return {
        paymentType: 'credit',
        input: {
          reference: w.reference,
          amount: w.amount,
          currency: w.currency,
          installments: w.installments,
          noFeesInstallments: w.no_fees_installments,
          card: 'token' in w.card ? { token: w.card.token } : cardInputFromWire(w.card),
          buyerId: w.buyer_id ?? null,
          capture: w.capture,
          ...(w.description != null ? { description: w.description } : {}),
          ...(w.binary_mode ? { initiatedBy: 'merchant' as const } : {}),
        },
      };
    case 'pix':
      return {
        paymentType: 'pix',
        input: {
          reference: w.reference,
          amount: w.amount,
          currency: w.currency,
          buyer: w.buyer ? buyerInputFromWire(w.buyer) : null,
          expiresInSeconds: w.expires_in_seconds,
        },
      };
    case 'boleto':
      return {
        paymentType: 'boleto',
        input: {
          reference: w.reference,
          amount: w.amount,
          currency: w.currency,
          buyer: buyerInputFromWire(w.buyer),
          dueDate: w.due_date,
        },
      };
  }
}
