import type { MikroORM, PostgreSqlConnection } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { markDatabaseError } from './pool.ts';

/**
 * Plain SQL, left for the metrics alone (db/metrics-queries.ts, api/routes/metrics.ts, bench/metrics.ts)
 * until they move to the typed builder; then this file goes. Everything else reaches PostgreSQL through
 * entities and the typed Kysely (docs/decisions/0003-two-ways-to-the-database.md).
 */

export type Row = Record<string, unknown>;
/**
 * One statement with `?` placeholders; the rows it returns, as `T` (unchecked: the statement says
 * what its columns are). `T` is an object type, so interfaces qualify too.
 */
export type Sql = <T extends object = Row>(text: string, params?: readonly unknown[]) => Promise<T[]>;

export interface PlainSql {
  /**
   * One statement on its own (its own transaction). `prepared` names it: prepared once per
   * connection, after which each call sends only its parameters (the hottest reads).
   */
  query<T extends object = Row>(text: string, params?: readonly unknown[], prepared?: string): Promise<T[]>;
  /** `run` in one transaction on one connection: committed when it returns, rolled back when it throws. */
  transaction<T>(run: (sql: Sql) => Promise<T>): Promise<T>;
}

/**
 * Statements sent straight to the pg pool under MikroORM (the same connections, type parsers and
 * error marking, so a process holds one pool): MikroORM's own `execute` renders the parameters into
 * the text and goes through its query builder and logger, which costs more than the statement.
 */
const byOrm = new WeakMap<MikroORM, PlainSql>();

export function plainSql(orm: MikroORM): PlainSql {
  let known = byOrm.get(orm);
  if (!known) byOrm.set(orm, (known = plainSqlOn(orm)));
  return known;
}

function plainSqlOn(orm: MikroORM): PlainSql {
  let pool: Promise<pg.Pool> | null = null;
  const poolOf = () =>
    (pool ??= (orm.em.getConnection() as PostgreSqlConnection).getNativeClient().catch((err: unknown) => {
      pool = null; // not connected yet (PostgreSQL down): the next call tries again
      throw markDatabaseError(err);
    }));
  const run = async <T>(on: pg.Pool | pg.PoolClient, text: string, params: readonly unknown[] = [], name?: string) => {
    const values = params as unknown[];
    try {
      const statement = name ? { name, text: numbered(text), values } : { text: numbered(text), values };
      return (await on.query(statement)).rows as T[];
    } catch (err) {
      throw markDatabaseError(err);
    }
  };
  return {
    query: async <T extends object>(text: string, params?: readonly unknown[], prepared?: string) =>
      run<T>(await poolOf(), text, params, prepared),
    async transaction(body) {
      const client = await (await poolOf()).connect();
      let broken: unknown;
      try {
        await run(client, 'begin');
        const result = await body(<T extends object>(text: string, params?: readonly unknown[]) =>
          run<T>(client, text, params),
        );
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
