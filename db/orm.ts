import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './config.ts';
import { plainSql } from './plain-sql.ts';
import type { ConnectionOptions } from './pool.ts';

export type Orm = MikroORM;

/**
 * MikroORM over a pg pool. No connection is opened here: the first query opens one, so a process
 * starts (and answers 503) while PostgreSQL is down, and reconnects by itself when it is back.
 */
export async function openOrm(databaseUrl: string, poolMax?: number, options: ConnectionOptions = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(databaseUrl, poolMax, options));
}

/** Runs `fn` on the server's `postgres` database, where databases are created and dropped. */
async function onMaintenanceDatabase(
  databaseUrl: string,
  fn: (execute: (sql: string, params?: unknown[]) => Promise<unknown[]>) => Promise<void>,
) {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const orm = await MikroORM.init({
    clientUrl: admin.toString(),
    entities: [],
    discovery: { warnWhenNoEntities: false },
  });
  try {
    await fn(plainSql(orm).query);
  } finally {
    await orm.close();
  }
}

const databaseName = (databaseUrl: string) => decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Creates the database named in the URL when it does not exist. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  await onMaintenanceDatabase(databaseUrl, async (execute) => {
    const rows = await execute('select 1 from pg_database where datname = ?', [name]);
    if (rows.length === 0) await execute(`create database ${quoted(name)}`);
  });
}

/** Drops the database named in the URL, disconnecting its sessions (tests start from nothing). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  await onMaintenanceDatabase(databaseUrl, (execute) =>
    execute(`drop database if exists ${quoted(databaseName(databaseUrl))} with (force)`).then(() => undefined),
  );
}

export async function migrate(databaseUrl: string): Promise<void> {
  await ensureDatabase(databaseUrl);
  const orm = await openOrm(databaseUrl, 2);
  try {
    await orm.migrator.up();
  } finally {
    await orm.close();
  }
}
