import { plainSql, type SimulatorConnection } from './database.ts';

/**
 * What the simulated gateway's books say it did for one reference (a checkout, a subscription, an
 * invoice): what tests and benches check our own records against. Reads only; a check that must see
 * our tables and the gateway's in one snapshot joins `gateway_sim.*` in its own statement.
 */

export interface LedgerSummary {
  captures: number;
  /** Cents. */
  captured: number;
  refunds: number;
  /** Cents. */
  refunded: number;
}

/** How many captures and refunds the gateway made for `reference`, and their sums. */
export async function ledgerOf(connection: SimulatorConnection, reference: string): Promise<LedgerSummary> {
  const rows = await plainSql(connection).query<{ kind: string; n: string; total: string }>(
    `select l.kind, count(*) as n, sum(l.amount) as total from gateway_sim.ledger l
       join gateway_sim.transactions t on t.id = l.transaction_id where t.reference = ? group by l.kind`,
    [reference],
  );
  const of = (kind: string) => rows.find((r) => r.kind === kind);
  return {
    captures: Number(of('capture')?.n ?? 0),
    captured: Number(of('capture')?.total ?? 0),
    refunds: Number(of('refund')?.n ?? 0),
    refunded: Number(of('refund')?.total ?? 0),
  };
}

/** Each capture the gateway made for `reference`, in cents, in the order it made them. */
export async function capturedAmounts(connection: SimulatorConnection, reference: string): Promise<number[]> {
  const rows = await plainSql(connection).query<{ amount: string }>(
    `select l.amount from gateway_sim.ledger l join gateway_sim.transactions t on t.id = l.transaction_id
      where t.reference = ? and l.kind = 'capture' order by l.id`,
    [reference],
  );
  return rows.map((r) => Number(r.amount));
}
