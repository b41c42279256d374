import { DriverException } from '@mikro-orm/core';
import type pg from 'pg';

/**
 * The options and error handling of our pg connections: MikroORM's pool (db/config.ts), which its
 * typed Kysely and `prepared` statements use (db/kysely.ts), and the LISTEN connections (db/listen.ts).
 * No other pool is opened here.
 */

/** How long a caller waits for a connection when none is given (DATABASE_CONNECT_TIMEOUT_MS). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;

export interface ConnectionOptions {
  /**
   * How long to wait for a connection: a new one to open, or (pools) a busy pool to hand one out.
   * Past it the query fails at once instead of waiting for a PostgreSQL that does not answer.
   */
  connectTimeoutMs?: number;
  /** Shown in pg_stat_activity.application_name. */
  applicationName?: string;
  /** Told about connections that broke while idle (default: one line on stderr). */
  onError?: (err: Error) => void;
}

/**
 * Options for every pg client and pool of ours. TCP keepalive finds a peer that vanished without a
 * word (a dead host, a dropped route) on an idle connection, so the pool discards it.
 */
export function pgConnectionOptions(options: ConnectionOptions = {}) {
  return {
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
  };
}

/**
 * A pooled connection that PostgreSQL closes (a restart, a failover, an administrator's
 * pg_terminate_backend) is reported as an 'error' event: on the pool when the connection was idle, on
 * the client while it is checked out. An 'error' event nobody listens to kills the process, so every
 * pool of ours listens to both. The pool has already discarded the broken connection, and a query in
 * flight fails on its own; the next query opens a new connection.
 */
export function watchPool(pool: pg.Pool, onError: (err: Error) => void = logToStderr): pg.Pool {
  markErrorsOf(pool, 'connect');
  markErrorsOf(pool, 'query');
  pool.on('error', onError);
  pool.on('connect', (client) => {
    client.on('error', onError);
  });
  return pool;
}

/**
 * A refused or reset connection fails with a bare network error (connect ECONNREFUSED, read
 * ECONNRESET) that does not say it came from PostgreSQL, and MikroORM passes the pool's connect
 * errors on as they are: the pool's promises mark their errors, so the error handler knows.
 */
function markErrorsOf(pool: pg.Pool, method: 'connect' | 'query'): void {
  const original = (pool[method] as (...args: unknown[]) => unknown).bind(pool);
  (pool as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
    const result = original(...args);
    return result instanceof Promise ? result.catch((err: unknown) => Promise.reject(markDatabaseError(err))) : result;
  };
}

/** Registered, so the simulated gateway's package (its own pools) marks its errors with the same symbol. */
const FROM_DATABASE = Symbol.for('billing-engine.database-error');

/** Marks an error as PostgreSQL's, for `isDatabaseError`. */
export function markDatabaseError(err: unknown): unknown {
  if (err instanceof Error) Object.defineProperty(err, FROM_DATABASE, { value: true });
  return err;
}

/** Whether the error came from a query of ours: a pg pool of ours, or MikroORM (its DriverException). */
export function isDatabaseError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return FROM_DATABASE in err || err instanceof DriverException;
}

let lastLogged = 0;
function logToStderr(err: Error): void {
  // One line per second at most: a restart breaks every pooled connection at once.
  const now = Date.now();
  if (now - lastLogged < 1000) return;
  lastLogged = now;
  process.stderr.write(`PostgreSQL connection lost (${err.message}); the pool reconnects on the next query\n`);
}
