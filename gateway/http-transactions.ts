import { z } from 'zod';
import { cardTokenFromWire, cardTokenToWire, wireCardToken } from './http-cards.ts';
import { cents, positiveCents, timestamp } from './http-fields.ts';
import { ROUTES } from './http-protocol.ts';
import type { GatewayTransaction } from './port.ts';

/** A transaction as the gateway answers it (any payment type), its lookup and the actions on it. */

const transactionStatus = z.enum([
  'new',
  'pending',
  'pre_authorized',
  'succeeded',
  'failed',
  'canceled',
  'reversed',
  'refunded',
  'partial_refunded',
  'dispute',
  'charged_back',
]);
const declineReason = z.enum([
  'card_declined',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'do_not_honor',
  'fraud_suspected',
  'authentication_required',
  'invalid_card',
  'expired',
  'overdue',
]);
const paymentType = z.enum(['credit', 'pix', 'boleto']);

export const wireTransaction = z.object({
  id: z.string(),
  reference: z.string(),
  status: transactionStatus,
  payment_type: paymentType,
  amount: cents,
  base_amount: cents,
  currency: z.string(),
  installments: z.number().int(),
  installment_amounts: z.array(cents),
  authorization_code: z.string().nullable(),
  decline_reason: declineReason.nullable(),
  card: wireCardToken.nullable(),
  pix: z.object({ qr_code: z.string(), qr_code_image: z.string(), expires_at: timestamp }).nullable(),
  boleto: z
    .object({ barcode: z.string(), digitable_line: z.string(), due_date: z.string(), url: z.string() })
    .nullable(),
  buyer_id: z.string().nullable(),
  transaction_number: z.string(),
  captured_amount: cents,
  refunded_amount: cents,
  created_at: timestamp,
  confirmed_at: timestamp.nullable(),
});
export type WireTransaction = z.infer<typeof wireTransaction>;

export function transactionToWire(t: GatewayTransaction): WireTransaction {
  return {
    id: t.id,
    reference: t.reference,
    status: t.status,
    payment_type: t.paymentType,
    amount: t.amount,
    base_amount: t.baseAmount,
    currency: t.currency,
    installments: t.installments,
    installment_amounts: t.installmentAmounts,
    authorization_code: t.authorizationCode ?? null,
    decline_reason: t.declineReason ?? null,
    card: t.card ? cardTokenToWire(t.card) : null,
    pix: t.pix ? { qr_code: t.pix.qrCode, qr_code_image: t.pix.qrCodeImage, expires_at: t.pix.expiresAt } : null,
    boleto: t.boleto
      ? {
          barcode: t.boleto.barcode,
          digitable_line: t.boleto.digitableLine,
          due_date: t.boleto.dueDate,
          url: t.boleto.url,
        }
      : null,
    buyer_id: t.buyerId ?? null,
    transaction_number: t.transactionNumber,
    captured_amount: t.capturedAmount,
    refunded_amount: t.refundedAmount,
    created_at: t.createdAt,
    confirmed_at: t.confirmedAt ?? null,
  };
}

export function transactionFromWire(w: WireTransaction): GatewayTransaction {
  return {
    id: w.id,
    reference: w.reference,
    status: w.status,
    paymentType: w.payment_type,
    amount: w.amount,
    baseAmount: w.base_amount,
    currency: w.currency,
    installments: w.installments,
    installmentAmounts: w.installment_amounts,
    authorizationCode: w.authorization_code,
    declineReason: w.decline_reason,
    card: w.card ? cardTokenFromWire(w.card) : null,
    pix: w.pix ? { qrCode: w.pix.qr_code, qrCodeImage: w.pix.qr_code_image, expiresAt: w.pix.expires_at } : null,
    boleto: w.boleto
      ? {
          barcode: w.boleto.barcode,
          digitableLine: w.boleto.digitable_line,
          dueDate: w.boleto.due_date,
          url: w.boleto.url,
        }
      : null,
    buyerId: w.buyer_id,
    transactionNumber: w.transaction_number,
    capturedAmount: w.captured_amount,
    refundedAmount: w.refunded_amount,
    createdAt: w.created_at,
    confirmedAt: w.confirmed_at,
  };
}

/** The query of `GET /v1/transactions`: the one filter there is, required. */
export const wireTransactionQuery = z.object({ idempotency_key: z.string().min(1).max(255) });
export type WireTransactionQuery = z.infer<typeof wireTransactionQuery>;

/** The answer of `GET /v1/transactions`: an empty list when no call under that key completed. */
export const wireTransactionList = z.object({ data: z.array(wireTransaction).max(1) });
export type WireTransactionList = z.infer<typeof wireTransactionList>;

/** The path and query of the lookup by idempotency key. */
export function transactionQueryPath(idempotencyKey: string): string {
  const query: WireTransactionQuery = { idempotency_key: idempotencyKey };
  return `${ROUTES.findTransactions.path}?${new URLSearchParams(query).toString()}`;
}

/** `POST /v1/transactions/:id/capture`: null captures the whole authorization. */
export const wireCapture = z.object({ amount: positiveCents.nullable() });
export const wireRefund = z.object({ amount: positiveCents });
/** Bodies of actions that take no fields (void, cancel): `{}`. */
export const wireEmpty = z.object({}).strict();
