import type { LedgerRow } from '../../../domain/reconciliation.ts';
import type { LedgerWindow } from '../../../gateway/port.ts';
import type { PlainSql } from './database.ts';

/**
 * The simulator's ledger as a gateway reports it (decision 0073), read from its books
 * (gateway_sim.ledger: one row per capture and refund) with a fee schedule and release calendar of
 * its own, fixed here so that a test can work every cent out by hand:
 *
 * - a payment's gross is what was captured, its transaction amount: a buyer's instalment interest is
 *   the gateway's, as at Mercado Pago (decision 0079);
 * - fee, charged on the capture's day: card in one instalment 3.99 %, card in instalments 4.99 %,
 *   pix 0.99 %, boleto a flat R$ 3,49; rounded half up to the cent; a refund gives no fee back;
 * - release: a payment in one instalment (and every pix and boleto) is released on its capture's
 *   day; a card payment in n instalments releases its gross by instalment, the first on the
 *   capture's day and each next one 30 days later (shares split evenly, the odd cents on the first);
 * - refunds on their own day;
 * - disputes (decision 0079) as Mercado Pago's release report blocks and unblocks: the disputed money
 *   held on the day the chargeback opens (negative), given back on the day it is won (positive); a
 *   lost dispute keeps its hold. No withholdings or payouts yet.
 */

const DAY_MS = 86_400_000;
export const RELEASE_INTERVAL_DAYS = 30;

/** Basis points of the gross, or a flat fee in cents (boleto). */
export function simulatorFee(paymentType: string, installments: number, gross: number): number {
  if (paymentType === 'boleto') return 349;
  const basisPoints = paymentType === 'pix' ? 99 : installments > 1 ? 499 : 399;
  return Math.floor((gross * basisPoints + 5_000) / 10_000);
}

/** Each instalment's share of the gross: even, the odd cents on the first ones. */
export function releaseShares(gross: number, installments: number): number[] {
  const base = Math.floor(gross / installments);
  const odd = gross - base * installments;
  return Array.from({ length: installments }, (_, i) => base + (i < odd ? 1 : 0));
}

interface MovementRow {
  kind: 'capture' | 'refund' | 'dispute_hold' | 'dispute_release';
  amount: string;
  at: Date;
  transaction_id: string;
  reference: string;
  status: string;
  payment_type: string;
  installments: number;
}

/** The rows of money the simulator moved in `window`, releases by their release date. */
export async function ledgerRows(db: PlainSql, window: LedgerWindow): Promise<LedgerRow[]> {
  // A capture up to the longest release calendar before the window may release an instalment in it.
  const since = new Date(window.from.getTime() - 12 * RELEASE_INTERVAL_DAYS * DAY_MS);
  const movements = await db.query<MovementRow>(
    `select l.kind, l.amount, l.created_at as at, t.id as transaction_id, t.reference, t.status, t.payment_type,
            t.installments
       from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
      where l.created_at >= ? and l.created_at < ? order by l.id`,
    [since, window.to],
  );
  const inWindow = (at: Date) => at >= window.from && at < window.to;
  const rows: LedgerRow[] = [];
  for (const m of movements) {
    const at = new Date(m.at);
    const amount = Number(m.amount);
    const key = { gatewayId: m.transaction_id, reference: m.reference };
    if (m.kind !== 'capture') {
      if (inWindow(at)) rows.push({ ...key, ...movementRow(m.kind, amount), releaseDate: at.toISOString() });
      continue;
    }
    const n = m.payment_type === 'credit' ? m.installments : 1;
    releaseShares(amount, n).forEach((share, i) => {
      const release = new Date(at.getTime() + i * RELEASE_INTERVAL_DAYS * DAY_MS);
      if (!inWindow(release)) return;
      rows.push({
        ...key,
        kind: 'payment',
        amount: share,
        status: m.status,
        installment: n > 1 ? { number: i + 1, of: n } : null,
        releaseDate: release.toISOString(),
      });
    });
    if (inWindow(at)) {
      const fee = simulatorFee(m.payment_type, n, amount);
      rows.push({ ...key, kind: 'fee', amount: -fee, releaseDate: at.toISOString() });
    }
  }
  return rows;
}

/** A refund or a dispute's hold or release: signed cents, a credit to the seller positive. */
function movementRow(
  kind: Exclude<MovementRow['kind'], 'capture'>,
  amount: number,
): Pick<LedgerRow, 'kind' | 'amount'> {
  if (kind === 'refund') return { kind: 'refund', amount: -amount };
  return { kind: 'dispute', amount: kind === 'dispute_hold' ? -amount : amount };
}
