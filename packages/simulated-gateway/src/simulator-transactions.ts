import { randomBytes } from 'node:crypto';
import type { Row, Sql } from './database.ts';
import { boletoPayableUntil } from '../../../gateway/payment-documents.ts';
import { GatewayError, type CardToken, type DeclineReason, type GatewayTransaction } from '../../../gateway/port.ts';
import { newId, toTransaction, TRANSACTION_COLUMNS } from './simulator-rows.ts';

/** The simulator's transactions (gateway_sim.transactions), its ledger of captures, and when a charge lapses. */

export const authorizationCode = () => randomBytes(3).toString('hex').toUpperCase();

/** A boleto may still be paid for BOLETO_GRACE_DAYS whole days after its due date (UTC). */
export const boletoLapsesAt = boletoPayableUntil;

export const lapseReason = (t: GatewayTransaction): DeclineReason => (t.paymentType === 'pix' ? 'expired' : 'overdue');

export function hasLapsed(t: GatewayTransaction, row: Row, clock: () => Date): boolean {
  return t.status === 'pending' && row.lapses_at != null && new Date(row.lapses_at as string) <= clock();
}

export async function insertTransaction(
  sql: Sql,
  t: {
    id?: string;
    transactionNumber?: string;
    reference: string;
    status: string;
    paymentType: string;
    amount: number;
    baseAmount: number;
    currency: string;
    installments: number;
    installmentAmounts: number[];
    authorizationCode?: string | null;
    declineReason?: DeclineReason | null;
    cardId?: string | null;
    card?: CardToken | null;
    buyerId?: string | null;
    pix?: unknown;
    boleto?: unknown;
    lapsesAt?: Date | null;
    confirmedAt?: Date | null;
    now: Date;
  },
): Promise<GatewayTransaction> {
  const [row] = await sql(
    `insert into gateway_sim.transactions
       (id, reference, status, payment_type, amount, base_amount, currency, installments, installment_amounts,
        authorization_code, decline_reason, card_id, card, pix, boleto, buyer_id, transaction_number, lapses_at,
        created_at, confirmed_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?,
             coalesce(?, nextval('gateway_sim.transaction_numbers')::text), ?, ?, ?, ?)
     returning ${TRANSACTION_COLUMNS}`,
    [
      t.id ?? newId('tr'),
      t.reference,
      t.status,
      t.paymentType,
      t.amount,
      t.baseAmount,
      t.currency,
      t.installments,
      JSON.stringify(t.installmentAmounts),
      t.authorizationCode ?? null,
      t.declineReason ?? null,
      t.cardId ?? null,
      t.card ? JSON.stringify(t.card) : null,
      t.pix ? JSON.stringify(t.pix) : null,
      t.boleto ? JSON.stringify(t.boleto) : null,
      t.buyerId ?? null,
      t.transactionNumber ?? null,
      t.lapsesAt ?? null,
      t.now,
      t.confirmedAt ?? null,
      t.now,
    ],
  );
  return toTransaction(row!);
}

/** Money moves: one ledger row, and the transaction's captured amount follows it. */
export async function recordCapture(
  sql: Sql,
  transactionId: string,
  amount: number,
  key: string | null,
): Promise<GatewayTransaction> {
  await sql(
    `insert into gateway_sim.ledger (transaction_id, kind, amount, idempotency_key) values (?, 'capture', ?, ?)`,
    [transactionId, amount, key],
  );
  const [row] = await sql(
    `update gateway_sim.transactions set captured_amount = captured_amount + ?, updated_at = now() where id = ?
     returning ${TRANSACTION_COLUMNS}`,
    [amount, transactionId],
  );
  return toTransaction(row!);
}

export async function lockTransaction(sql: Sql, transactionId: string): Promise<GatewayTransaction> {
  const [row] = await sql(`select ${TRANSACTION_COLUMNS} from gateway_sim.transactions where id = ? for update`, [
    transactionId,
  ]);
  if (!row) throw new GatewayError(`Unknown transaction ${transactionId}`, false);
  return toTransaction(row);
}
