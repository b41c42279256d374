import type { Sql } from './database.ts';
import { DEFAULT_MONTHLY_RATE_BASIS_POINTS, installmentPlan } from '../../../domain/installments.ts';
import { boletoDocument, pixDocument } from '../../../gateway/payment-documents.ts';
import {
  GatewayError,
  type BoletoChargeInput,
  type CardChargeInput,
  type GatewayTransaction,
  type PixChargeInput,
} from '../../../gateway/port.ts';
import { declineReasonOf, findCard, requireBuyer, storeBuyer, storeCard } from './simulator-cards.ts';
import { newId, toTransaction, TRANSACTION_COLUMNS } from './simulator-rows.ts';
import {
  authorizationCode,
  boletoLapsesAt,
  insertTransaction,
  lockTransaction,
  recordCapture,
} from './simulator-transactions.ts';

/**
 * The simulator's new charges (a card charge, a pix charge, a boleto), each in the transaction that
 * claimed its idempotency key (`sql`); `clock` is the simulator's. The inputs were checked before.
 */

/**
 * A card charge in installments: declined, pre-authorized, or captured at once when asked and the card
 * allows it. A test card held for review leaves the charge pending, unless the merchant started it
 * (a renewal, an extra charge): like Mercado Pago's `binary_mode`, which the engine sends for such
 * charges, it is then refused at once (fraud_suspected), never left pending (decision 0079).
 */
export async function insertCardCharge(
  sql: Sql,
  clock: () => Date,
  input: CardChargeInput,
  idempotencyKey: string,
  attempt: number,
): Promise<GatewayTransaction> {
  const { token, outcome } =
    'token' in input.card ? await findCard(sql, input.card.token) : await storeCard(sql, input.card, true);
  if (outcome === 'processing_error_once' && attempt === 1) {
    throw new GatewayError('Processing error at the card network; retry with the same idempotency key', true);
  }
  if (input.buyerId) await requireBuyer(sql, input.buyerId);
  const reviewed = outcome === 'review_approve' || outcome === 'review_decline';
  const binary = input.initiatedBy === 'merchant';
  const declineReason =
    declineReasonOf(outcome, token, 'token' in input.card ? null : input.card.cvv, clock) ??
    (binary && reviewed ? 'fraud_suspected' : null);
  const plan = installmentPlan(input.amount, input.installments, {
    noFees: input.noFeesInstallments,
    monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS,
  });
  const underReview = reviewed && !binary;
  const status = declineReason
    ? 'failed'
    : underReview
      ? 'pending'
      : input.capture && outcome !== 'authorize_only'
        ? 'succeeded'
        : 'pre_authorized';
  const now = clock();
  const row = await insertTransaction(sql, {
    reference: input.reference,
    status,
    paymentType: 'credit',
    amount: plan.total,
    baseAmount: input.amount,
    currency: input.currency,
    installments: input.installments,
    installmentAmounts: plan.installmentAmounts,
    authorizationCode: declineReason || underReview ? null : authorizationCode(),
    declineReason,
    cardId: token.id,
    card: token,
    buyerId: input.buyerId ?? null,
    confirmedAt: status === 'succeeded' ? now : null,
    now,
  });
  // Captured as Mercado Pago measures it: the transaction amount; the buyer's interest is the gateway's (decision 0079).
  if (status === 'succeeded') return recordCapture(sql, row.id, input.amount, idempotencyKey);
  return row;
}

/**
 * The review of a card charge held for it ends as its test card says: approved (captured in full) or
 * declined fraud_suspected. A charge cancelled meanwhile is approved too when its card says so: the
 * issuer's approval crossed the cancellation (the engine must give such money back). Anything else
 * is refused; a review already ended is answered as it is.
 */
export async function endCardReview(sql: Sql, clock: () => Date, transactionId: string): Promise<GatewayTransaction> {
  const t = await lockTransaction(sql, transactionId);
  const [card] = await sql(
    'select outcome from gateway_sim.cards c join gateway_sim.transactions t on t.card_id = c.id where t.id = ?',
    [transactionId],
  );
  const outcome = card?.outcome as string | undefined;
  if (outcome !== 'review_approve' && outcome !== 'review_decline') {
    throw new GatewayError('Only a card charge held for review ends its review', false);
  }
  const approve = outcome === 'review_approve';
  if (t.status === (approve ? 'succeeded' : 'failed') || (t.status === 'canceled' && !approve)) return t;
  if (t.status !== 'pending' && t.status !== 'canceled') {
    throw new GatewayError(`Cannot end the review of a transaction that is ${t.status}`, false);
  }
  const now = clock();
  if (!approve) {
    const [row] = await sql(
      `update gateway_sim.transactions set status = 'failed', decline_reason = 'fraud_suspected', updated_at = now()
       where id = ? returning ${TRANSACTION_COLUMNS}`,
      [t.id],
    );
    return toTransaction(row!);
  }
  await sql(
    `update gateway_sim.transactions set status = 'succeeded', confirmed_at = ?, authorization_code = ?, updated_at = now()
     where id = ?`,
    [now, authorizationCode(), t.id],
  );
  return recordCapture(sql, t.id, t.baseAmount, null);
}

/**
 * A pix's id is its txid, as a PSP's cob is (26–35 letters and digits, no underscore): journey 3 names
 * it as the rec's ativacao.dadosJornada.txid.
 */
const newPixTxid = () => newId('tr').replace('_', '');

export async function insertPixCharge(
  sql: Sql,
  clock: () => Date,
  input: PixChargeInput,
  id = newPixTxid(),
): Promise<GatewayTransaction> {
  const buyer = input.buyer ? await storeBuyer(sql, input.buyer) : null;
  const now = clock();
  const expiresAt = new Date(now.getTime() + input.expiresInSeconds * 1000);
  return insertTransaction(sql, {
    id,
    reference: input.reference,
    status: 'pending',
    paymentType: 'pix',
    amount: input.amount,
    baseAmount: input.amount,
    currency: input.currency,
    installments: 1,
    installmentAmounts: [input.amount],
    buyerId: buyer?.id ?? null,
    pix: pixDocument({ transactionId: id, reference: input.reference, amount: input.amount, expiresAt }),
    lapsesAt: expiresAt,
    now,
  });
}

export async function insertBoleto(sql: Sql, clock: () => Date, input: BoletoChargeInput): Promise<GatewayTransaction> {
  const buyer = await storeBuyer(sql, input.buyer);
  const id = newId('tr');
  const [seq] = await sql(`select nextval('gateway_sim.transaction_numbers')::text as n`, []);
  const transactionNumber = seq!.n as string;
  return insertTransaction(sql, {
    id,
    transactionNumber,
    reference: input.reference,
    status: 'pending',
    paymentType: 'boleto',
    amount: input.amount,
    baseAmount: input.amount,
    currency: input.currency,
    installments: 1,
    installmentAmounts: [input.amount],
    buyerId: buyer.id,
    boleto: boletoDocument({ transactionId: id, transactionNumber, amount: input.amount, dueDate: input.dueDate }),
    lapsesAt: boletoLapsesAt(input.dueDate),
    now: clock(),
  });
}
