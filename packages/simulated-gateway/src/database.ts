import type { MikroORM, PostgreSqlConnection } from '@mikro-orm/postgresql';
import pg from 'pg';

/**
 * The simulator's way to its books (schema gateway_sim): plain statements on a pg pool, its own or the
 * one under a MikroORM instance the caller lends it. The package imports nothing of the engine's db/.
 */

export type Row = Record<string, unknown>;
/** One statement with `?` placeholders; the rows it returns, as `T` (unchecked: the statement says what its columns are). */
export type Sql = <T extends object = Row>(text: string, params?: readonly unknown[]) => Promise<T[]>;

export interface PlainSql {
  /** One statement on its own (its own transaction). */
  query<T extends object = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** `run` in one transaction on one connection: committed when it returns, rolled back when it throws. */
  transaction<T>(run: (sql: Sql) => Promise<T>): Promise<T>;
}

/** Where the simulator's books are: a pg pool of its own, or a MikroORM instance whose pool it shares. */
export type SimulatorConnection = pg.Pool | MikroORM;

/**
 * Errors that came from PostgreSQL, so that a server answers 503 for them. A registered symbol: the
 * engine's db/pool.ts marks its pools' errors with the same one, and either side recognizes both.
 */
const FROM_DATABASE = Symbol.for('billing-engine.database-error');

export function markDatabaseError(err: unknown): unknown {
  if (err instanceof Error && !(FROM_DATABASE in err)) Object.defineProperty(err, FROM_DATABASE, { value: true });
  return err;
}

export const isDatabaseError = (err: unknown): boolean => err instanceof Error && FROM_DATABASE in err;

/**
 * A connection that could not be made or was lost. The simulator's only connections are its
 * database's, and MikroORM's first connect (its database check) fails with the bare network error.
 */
const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);
const isConnectionFailure = (err: unknown) =>
  CONNECTION_FAILURES.has((err as { code?: unknown } | null)?.code as string);

/** Its database down (refused, reset, gone): the gateway is unavailable for now, and a caller retries. */
export const isDatabaseDown = (err: unknown): boolean => isDatabaseError(err) || isConnectionFailure(err);

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  connectTimeoutMs?: number;
}

/**
 * A pool of the simulator's own (the standalone server's, the migrations'). Connections PostgreSQL
 * closes are reported as 'error' events, which would kill the process unheard: they are logged, and
 * the next query opens a new connection.
 */
export function openSimulatorPool(databaseUrl: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 5,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
  });
  const onError = (err: Error) =>
    process.stderr.write(`simulated gateway: PostgreSQL connection lost (${err.message})\n`);
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

const byConnection = new WeakMap<object, PlainSql>();

export function plainSql(connection: SimulatorConnection): PlainSql {
  let known = byConnection.get(connection);
  if (!known) byConnection.set(connection, (known = plainSqlOn(poolGetter(connection))));
  return known;
}

function poolGetter(connection: SimulatorConnection): () => Promise<pg.Pool> {
  if (connection instanceof pg.Pool) return async () => connection;
  const orm = connection;
  let pool: Promise<pg.Pool> | null = null;
  return () =>
    (pool ??= (orm.em.getConnection() as PostgreSqlConnection).getNativeClient().catch((err: unknown) => {
      pool = null; // not connected yet (PostgreSQL down): the next call tries again
      throw markDatabaseError(err);
    }));
}

function plainSqlOn(poolOf: () => Promise<pg.Pool>): PlainSql {
  const run = async <T>(on: pg.Pool | pg.PoolClient, text: string, params: readonly unknown[] = []) => {
    try {
      return (await on.query({ text: numbered(text), values: params as unknown[] })).rows as T[];
    } catch (err) {
      throw markDatabaseError(err);
    }
  };
  return {
    query: async <T extends object>(text: string, params?: readonly unknown[]) => run<T>(await poolOf(), text, params),
    async transaction(body) {
      const client = await (await poolOf()).connect().catch((err: unknown) => Promise.reject(markDatabaseError(err)));
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

/** `?` placeholders as PostgreSQL's `$1, $2…`, outside quoted strings and identifiers. */
const cache = new Map<string, string>();
function numbered(text: string): string {
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
