import type { PlainSql, Sql } from './database.ts';
import { GatewayError } from '../../../gateway/port.ts';

/**
 * The simulator's idempotency keys (gateway_sim.idempotency): each call runs at most once per key,
 * every attempt is traced (gateway_sim.attempts), and tests may inject the failures of a real gateway.
 */

/** Test hooks: make the next calls fail the way a real gateway sometimes does. */
export interface SimulatorFaults {
  /** Number of upcoming calls that fail with a retryable error (as a 503 would), changing nothing. */
  failNext: number;
  /**
   * Number of upcoming calls that are carried out (and committed: a charge is captured) whose
   * answer is then lost: the caller gets a retryable error, as after a timeout or a reset connection.
   * Lookups (getTransaction, findTransactionByIdempotencyKey…) are never affected.
   */
  loseAnswerNext: number;
  /**
   * How long the lookup by key (findTransactionByIdempotencyKey) lags a new transaction, as Mercado
   * Pago's payment search does: a transaction younger than this (on the simulator's clock) is a
   * retryable `search_may_lag` error, never null. 0: no lag.
   */
  searchLagMs: number;
  /**
   * Pix Automático's notices of each change (mandate.updated, mandate_charge.updated) are delivered in
   * the reverse of the order they happened in, then all again under new ids, as a gateway whose
   * notices cross and repeat would: the engine must read the state back, never trust the order.
   */
  mandateNoticesTwiceReversed?: boolean;
}

/** The operations that create a transaction: what findTransactionByIdempotencyKey answers for. */
const TRANSACTION_OPERATIONS = ['charge_card', 'create_pix_charge', 'create_boleto'];

/** One attempt at an operation, inside the transaction that claimed its key. */
export type Attempt<T> = (sql: Sql, attempt: number) => Promise<T>;

/**
 * Claiming the key, like `once` does, and then giving it back (rolling back) makes the lookup wait
 * on the row lock of a call with the same key that has not committed yet.
 */
export async function transactionIdOfKey(db: PlainSql, key: string): Promise<string | null> {
  const free = new Error('key not used');
  try {
    return await db.transaction(async (sql) => {
      const claimed = await sql(
        `insert into gateway_sim.idempotency (key, operation, result) values (?, 'lookup', 'null')
         on conflict (key) do nothing returning key`,
        [key],
      );
      if (claimed.length > 0) throw free;
      const [stored] = await sql(`select operation, result->>'id' as id from gateway_sim.idempotency where key = ?`, [
        key,
      ]);
      return TRANSACTION_OPERATIONS.includes(stored!.operation as string)
        ? ((stored!.id as string | null) ?? null)
        : null;
    });
  } catch (err) {
    if (err === free) return null;
    throw err;
  }
}

/** `runOnce`, unless an injected fault (`faults`) says otherwise. */
export async function runOnceUnlessFaulted<T>(
  db: PlainSql,
  faults: SimulatorFaults,
  key: string,
  operation: string,
  run: Attempt<T>,
): Promise<T> {
  if (faults.failNext > 0) {
    faults.failNext -= 1;
    throw new GatewayError('Simulated gateway unavailable', true);
  }
  if (faults.loseAnswerNext > 0) {
    faults.loseAnswerNext -= 1;
    // Whatever the call did stays done; only its answer (a result or a refusal) never arrives.
    await runOnce(db, key, operation, run).catch(() => undefined);
    throw new GatewayError('Simulated lost answer: the gateway handled the call, its answer never arrived', true);
  }
  return runOnce(db, key, operation, run);
}

/**
 * Runs `operation` at most once per idempotency key: the key row and the operation's writes commit
 * together, and a concurrent duplicate waits on the key's row lock, then reads the stored result.
 * An attempt that throws stores nothing (the key stays free for the retry). Every attempt is
 * traced in gateway_sim.attempts once its transaction has ended (committed or not), and `run`
 * learns its attempt number.
 */
async function runOnce<T>(db: PlainSql, key: string, operation: string, run: Attempt<T>): Promise<T> {
  let outcome = 'error';
  try {
    return await db.transaction(async (sql) => {
      const [claimed] = await sql(
        `insert into gateway_sim.idempotency (key, operation, result) values (?, ?, 'null') on conflict (key) do nothing
         returning (select count(*)::int from gateway_sim.attempts where key = ?) + 1 as attempt`,
        [key, operation, key],
      );
      if (!claimed) {
        const [stored] = await sql('select operation, result from gateway_sim.idempotency where key = ?', [key]);
        if (stored!.operation !== operation) {
          throw new GatewayError(`Idempotency key reused for ${String(stored!.operation)}`, false);
        }
        outcome = 'replayed';
        return stored!.result as T;
      }
      const value = await run(sql, Number(claimed.attempt));
      await sql('update gateway_sim.idempotency set result = ? where key = ?', [JSON.stringify(value), key]);
      outcome = 'ran';
      return value;
    });
  } catch (err) {
    outcome = err instanceof Error ? `error: ${err.message}` : 'error';
    throw err;
  } finally {
    await db
      .query('insert into gateway_sim.attempts (key, operation, outcome) values (?, ?, ?)', [key, operation, outcome])
      .catch(() => undefined);
  }
}
