import { randomBytes } from 'node:crypto';
import type { Row } from './database.ts';
import type {
  CardToken,
  DeclineReason,
  GatewayInvoice,
  GatewaySubscription,
  GatewayTransaction,
} from '../../../gateway/port.ts';

/** The simulator's rows (schema gateway_sim) as the port's objects, and the columns they are read from. */

/**
 * A payment's disputes show on the payment, as Mercado Pago shows it `in_mediation` while a dispute is
 * open and `charged_back` once one is lost (decision 0079): `dispute_status` is that status, or null
 * (no dispute, or only won ones: the payment is as its refunds left it, the stored `status`). Read with
 * the row, so every answer (a read, a refund's, a callback's) says the same; the table is not aliased
 * wherever these columns are read or returned.
 */
const DISPUTE_STATUS = `(select case when bool_or(d.status = 'opened') then 'dispute'
    when bool_or(d.status = 'lost') then 'charged_back' end
   from gateway_sim.disputes d where d.transaction_id = gateway_sim.transactions.id) as dispute_status`;

export const TRANSACTION_COLUMNS = `id, reference, status, payment_type, amount, base_amount, currency, installments,
  installment_amounts, authorization_code, decline_reason, card, pix, boleto, buyer_id, transaction_number,
  captured_amount, refunded_amount, lapses_at, created_at, confirmed_at, ${DISPUTE_STATUS}`;
export const INVOICE_COLUMNS = `id, subscription_id, amount, currency, status, due_date::text as due_date,
  expiration_date::text as expiration_date, paid_at, created_at, transaction_id, cycle`;

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const isoOf = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());

export function cardTokenOf(row: Row): CardToken {
  return {
    id: row.id as string,
    brand: row.brand as string,
    first4: row.first4 as string,
    last4: row.last4 as string,
    holderName: row.holder_name as string,
    expirationMonth: row.expiration_month as string,
    expirationYear: row.expiration_year as string,
  };
}

export function toTransaction(row: Row): GatewayTransaction {
  return {
    id: row.id as string,
    reference: row.reference as string,
    status: (row.dispute_status ?? row.status) as GatewayTransaction['status'],
    paymentType: row.payment_type as GatewayTransaction['paymentType'],
    amount: Number(row.amount),
    baseAmount: Number(row.base_amount),
    currency: row.currency as string,
    installments: Number(row.installments),
    installmentAmounts: (row.installment_amounts as number[]).map(Number),
    authorizationCode: (row.authorization_code as string | null) ?? null,
    declineReason: (row.decline_reason as DeclineReason | null) ?? null,
    card: (row.card as CardToken | null) ?? null,
    pix: (row.pix as GatewayTransaction['pix']) ?? null,
    boleto: (row.boleto as GatewayTransaction['boleto']) ?? null,
    buyerId: (row.buyer_id as string | null) ?? null,
    transactionNumber: row.transaction_number as string,
    capturedAmount: Number(row.captured_amount),
    refundedAmount: Number(row.refunded_amount),
    createdAt: isoOf(row.created_at)!,
    confirmedAt: isoOf(row.confirmed_at),
  };
}

export function toSubscription(row: Row): GatewaySubscription {
  return {
    id: row.id as string,
    reference: row.reference as string,
    planId: row.plan_id as string,
    buyerId: row.buyer_id as string,
    status: row.status as GatewaySubscription['status'],
    createdAt: isoOf(row.created_at)!,
  };
}

export function toInvoice(row: Row): GatewayInvoice {
  return {
    id: row.id as string,
    subscriptionId: row.subscription_id as string,
    amount: Number(row.amount),
    currency: row.currency as string,
    status: row.status as GatewayInvoice['status'],
    dueDate: row.due_date as string,
    expirationDate: (row.expiration_date as string | null) ?? null,
    paidAt: isoOf(row.paid_at),
    createdAt: isoOf(row.created_at)!,
    transactionId: (row.transaction_id as string | null) ?? null,
    cycle: row.cycle == null ? null : Number(row.cycle),
  };
}
