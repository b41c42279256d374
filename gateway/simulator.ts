import { randomBytes } from 'node:crypto';
import type { Orm } from '../db/orm.ts';
import { GatewayError, type PaymentGateway, type RecurrencePlan, type RecurrencePlanInput } from './port.ts';

/** Test hooks: make the next calls fail the way a real gateway sometimes does. */
export interface SimulatorFaults {
  /** Number of upcoming calls that fail with a retryable error (as a 503 would). */
  failNext: number;
}

/**
 * The embedded simulated gateway (the sandbox's gateway). Its books live in PostgreSQL
 * (schema gateway_sim), so the API, the worker and the standalone server see one gateway.
 */
export class SimulatedGateway implements PaymentGateway {
  readonly faults: SimulatorFaults = { failNext: 0 };
  private readonly orm: Orm;

  constructor(orm: Orm) {
    this.orm = orm;
  }

  async createRecurrencePlan(input: RecurrencePlanInput, idempotencyKey: string): Promise<RecurrencePlan> {
    return this.once(idempotencyKey, 'create_recurrence_plan', async (sql) => {
      const id = `plan_${randomBytes(12).toString('hex')}`;
      const rows = await sql(
        `insert into gateway_sim.recurrence_plans (id, reference, name, amount, currency, interval, interval_count)
         values (?, ?, ?, ?, ?, ?, ?) returning created_at`,
        [id, input.reference, input.name, input.amount, input.currency, input.interval, input.intervalCount],
      );
      return {
        id,
        reference: input.reference,
        amount: input.amount,
        currency: input.currency,
        interval: input.interval,
        intervalCount: input.intervalCount,
        createdAt: new Date(rows[0]!.created_at as string).toISOString(),
      };
    });
  }

  /**
   * Runs `operation` at most once per idempotency key: the key row and the operation's writes commit
   * together, and a concurrent duplicate waits on the key's row lock, then reads the stored result.
   */
  private async once<T>(
    key: string,
    operation: string,
    run: (sql: (q: string, params: unknown[]) => Promise<Record<string, unknown>[]>) => Promise<T>,
  ): Promise<T> {
    if (this.faults.failNext > 0) {
      this.faults.failNext -= 1;
      throw new GatewayError('Simulated gateway unavailable', true);
    }
    const em = this.orm.em.fork();
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      const sql = (q: string, params: unknown[]) => conn.execute<Record<string, unknown>[]>(q, params, 'all', ctx);
      const claimed = await sql(
        `insert into gateway_sim.idempotency (key, operation, result) values (?, ?, 'null') on conflict (key) do nothing returning key`,
        [key, operation],
      );
      if (claimed.length === 0) {
        const [stored] = await sql('select operation, result from gateway_sim.idempotency where key = ?', [key]);
        if (stored!.operation !== operation)
          throw new GatewayError(`Idempotency key reused for ${String(stored!.operation)}`, false);
        return stored!.result as T;
      }
      const result = await run(sql);
      await sql('update gateway_sim.idempotency set result = ? where key = ?', [JSON.stringify(result), key]);
      return result;
    });
  }
}
