import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Orm } from './orm.ts';
import { markDatabaseError } from './pool.ts';

export type Row = Record<string, unknown>;
/** One statement with `?` placeholders, as MikroORM's `execute` takes them; the rows it returns. */
export type Sql = (text: string, params?: readonly unknown[]) => Promise<Row[]>;

export interface PlainSql {
  /** One statement on its own (its own transaction). */
  query: Sql;
  /** `run` in one transaction on one connection: committed when it returns, rolled back when it throws. */
  transaction<T>(run: (sql: Sql) => Promise<T>): Promise<T>;
}

/**
 * Statements sent straight to the pg pool under MikroORM (the same connections, type parsers and
 * error handling), for hot paths whose statements are plain SQL: MikroORM's own `execute` renders
 * the parameters into the text and goes through its query builder and logger, which costs more
 * than the statement.
 */
const byOrm = new WeakMap<Orm, PlainSql>();

export function plainSql(orm: Orm): PlainSql {
  let known = byOrm.get(orm);
  if (!known) byOrm.set(orm, (known = plainSqlOn(orm)));
  return known;
}

function plainSqlOn(orm: Orm): PlainSql {
  let pool: Promise<pg.Pool> | null = null;
  const poolOf = () =>
    (pool ??= (orm.em.getConnection() as PostgreSqlConnection).getNativeClient().catch((err: unknown) => {
      pool = null; // not connected yet (PostgreSQL down): the next call tries again
      throw markDatabaseError(err);
    }));
  const run = async (on: pg.Pool | pg.PoolClient, text: string, params: readonly unknown[] = []) => {
    try {
      return (await on.query<Row>(numbered(text), params as unknown[])).rows;
    } catch (err) {
      throw markDatabaseError(err);
    }
  };
  return {
    query: async (text, params) => run(await poolOf(), text, params),
    async transaction(body) {
      const client = await (await poolOf()).connect();
      let broken: unknown;
      try {
        await run(client, 'begin');
        const result = await body((text, params) => run(client, text, params));
        await run(client, 'commit');
        return result;
      } catch (err) {
        await run(client, 'rollback').catch((rollbackError: unknown) => {
          broken = rollbackError;
        });
        throw err;
      } finally {
        // A connection that could not even roll back is discarded rather than handed out again.
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
  };
}

/**
 * `?` placeholders as PostgreSQL's `$1, $2…`, outside quoted strings and identifiers (a `?` in a
 * literal stays). The statements here never use the jsonb `?` operators.
 */
const cache = new Map<string, string>();
export function numbered(text: string): string {
  const known = cache.get(text);
  if (known !== undefined) return known;
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '?') {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  if (cache.size < 1000) cache.set(text, out);
  return out;
}

/**
 * What the shared statement helpers (events, transactions, redemptions) need of a transaction: an
 * `execute` like MikroORM's EntityManager has, so they run in either kind of transaction.
 */
export interface SqlExecutor {
  execute<T = Row[]>(text: string, params?: readonly unknown[]): Promise<T>;
}

export const executorOf = (sql: Sql): SqlExecutor => ({
  execute: async <T>(text: string, params?: readonly unknown[]) => (await sql(text, params)) as T,
});
