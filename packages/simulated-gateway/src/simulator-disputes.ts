import type { PlainSql, Row, Sql } from './database.ts';
import { GatewayError, type CardToken, type GatewayCallback, type GatewayChargeback } from '../../../gateway/port.ts';
import { cardTokenOf, newId } from './simulator-rows.ts';
import { lockTransaction } from './simulator-transactions.ts';

/**
 * What happens to a payment after the sale at the simulator (decision 0079): chargebacks (a dispute
 * opened by the buyer's bank, then won or lost, its money held in the ledger while open) and the
 * card updater (an issuer's replacement of a kept card). Each change is told by a signed callback.
 */

const DISPUTE_COLUMNS = 'id, transaction_id, amount, currency, status';

const toChargeback = (row: Row): GatewayChargeback => ({
  id: row.id as string,
  transactionId: row.transaction_id as string,
  amount: Number(row.amount),
  currency: row.currency as string,
  status: row.status as GatewayChargeback['status'],
});

export function chargebackNotice(c: GatewayChargeback, occurredAt: Date): GatewayCallback {
  return {
    id: newId('cb'),
    type: 'chargeback.updated',
    chargebackId: c.id,
    transactionId: c.transactionId,
    status: c.status,
    occurredAt: occurredAt.toISOString(),
  };
}

export function cardUpdatedNotice(replaced: string, by: CardToken, occurredAt: Date): GatewayCallback {
  return {
    id: newId('cb'),
    type: 'card.updated',
    cardId: replaced,
    replacedBy: by.id,
    status: 'replaced',
    occurredAt: occurredAt.toISOString(),
  };
}

export async function readChargeback(db: PlainSql, chargebackId: string): Promise<GatewayChargeback | null> {
  const [row] = await db.query(`select ${DISPUTE_COLUMNS} from gateway_sim.disputes where id = ?`, [chargebackId]);
  return row ? toChargeback(row) : null;
}

/**
 * The buyer's bank disputes a captured card payment: all that is left of it (captured less refunded),
 * or `amount` cents of that. The ledger holds the disputed money from now on (a block). A payment
 * with a dispute still open is refused another.
 */
export async function openDispute(
  sql: Sql,
  clock: () => Date,
  transactionId: string,
  amount: number | null,
): Promise<GatewayChargeback> {
  const t = await lockTransaction(sql, transactionId);
  const left = t.capturedAmount - t.refundedAmount;
  if (t.paymentType !== 'credit' || left <= 0) {
    throw new GatewayError('Only a card payment with money captured is disputed', false);
  }
  const disputed = amount ?? left;
  if (!Number.isInteger(disputed) || disputed <= 0 || disputed > left) {
    throw new GatewayError(`A dispute takes between 1 and ${left} cents of this payment`, false);
  }
  const [open] = await sql(`select 1 from gateway_sim.disputes where transaction_id = ? and status = 'opened'`, [t.id]);
  if (open) throw new GatewayError('This payment has a dispute open already', false);
  const [row] = await sql(
    `insert into gateway_sim.disputes (id, transaction_id, amount, currency, status, created_at)
     values (?, ?, ?, ?, 'opened', ?) returning ${DISPUTE_COLUMNS}`,
    [newId('chb'), t.id, disputed, t.currency, clock()],
  );
  await moveLedger(sql, t.id, 'dispute_hold', disputed, clock());
  return toChargeback(row!);
}

/**
 * The card network decides an open dispute: won gives the held money back to the seller (an unblock),
 * lost leaves it with the buyer. A decided dispute is answered as it is when asked the same outcome.
 */
export async function decideDispute(
  sql: Sql,
  clock: () => Date,
  chargebackId: string,
  outcome: 'won' | 'lost',
): Promise<{ dispute: GatewayChargeback; changed: boolean }> {
  const [row] = await sql(`select ${DISPUTE_COLUMNS} from gateway_sim.disputes where id = ? for update`, [
    chargebackId,
  ]);
  if (!row) throw new GatewayError(`Unknown chargeback ${chargebackId}`, false);
  const dispute = toChargeback(row);
  if (dispute.status === outcome) return { dispute, changed: false };
  if (dispute.status !== 'opened') throw new GatewayError(`The dispute was ${dispute.status} already`, false);
  const [decided] = await sql(
    `update gateway_sim.disputes set status = ?, decided_at = ? where id = ? returning ${DISPUTE_COLUMNS}`,
    [outcome, clock(), chargebackId],
  );
  if (outcome === 'won') await moveLedger(sql, dispute.transactionId, 'dispute_release', dispute.amount, clock());
  return { dispute: toChargeback(decided!), changed: true };
}

async function moveLedger(sql: Sql, transactionId: string, kind: string, amount: number, at: Date): Promise<void> {
  await sql(`insert into gateway_sim.ledger (transaction_id, kind, amount, created_at) values (?, ?, ?, ?)`, [
    transactionId,
    kind,
    amount,
    at,
  ]);
}

/** The money of a payment's disputes that is not the seller's now: held while open, taken once lost. */
export async function disputedAmount(sql: Sql, transactionId: string): Promise<number> {
  const [row] = await sql(
    `select coalesce(sum(amount), 0)::bigint as held from gateway_sim.disputes
      where transaction_id = ? and status in ('opened', 'lost')`,
    [transactionId],
  );
  return Number(row!.held);
}

/**
 * The issuer's card updater replaces a kept card (a new number's last four digits, a new expiry): the
 * replacement is a kept card of its own, with the replaced card's brand, holder and test outcome.
 */
export async function replaceCard(
  sql: Sql,
  cardId: string,
  next: { last4: string; expirationMonth: string; expirationYear: string },
): Promise<CardToken> {
  if (!/^\d{4}$/.test(next.last4) || !/^\d{2}$/.test(next.expirationMonth) || !/^\d{4}$/.test(next.expirationYear)) {
    throw new GatewayError(
      'A replacement card needs last4 (4 digits), expirationMonth (MM) and expirationYear (YYYY)',
      false,
    );
  }
  const [old] = await sql('select * from gateway_sim.cards where id = ? for update', [cardId]);
  if (!old) throw new GatewayError(`Unknown card token ${cardId}`, false);
  if (old.replaced_by) throw new GatewayError(`The card was replaced already by ${old.replaced_by as string}`, false);
  const [row] = await sql(
    `insert into gateway_sim.cards (id, brand, first4, last4, holder_name, expiration_month, expiration_year, outcome)
     values (?, ?, ?, ?, ?, ?, ?, ?) returning *`,
    [
      newId('card'),
      old.brand,
      old.first4,
      next.last4,
      old.holder_name,
      next.expirationMonth,
      next.expirationYear,
      old.outcome,
    ],
  );
  await sql('update gateway_sim.cards set replaced_by = ? where id = ?', [row!.id, cardId]);
  return cardTokenOf(row!);
}

/** A kept card by id, as the card updater left it; null when the simulator keeps no such card. */
export async function readKeptCard(db: PlainSql, cardId: string): Promise<CardToken | null> {
  const [row] = await db.query('select * from gateway_sim.cards where id = ?', [cardId]);
  return row ? cardTokenOf(row) : null;
}
