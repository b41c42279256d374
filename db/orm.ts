import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './config.ts';
import { kyselyOf, sql, type Database, type Kysely } from './kysely.ts';
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
async function onMaintenanceDatabase(databaseUrl: string, fn: (db: Kysely<Database>) => Promise<void>) {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const orm = await MikroORM.init({
    clientUrl: admin.toString(),
    entities: [],
    discovery: { warnWhenNoEntities: false },
  });
  try {
    await fn(kyselyOf(orm.em));
  } finally {
    await orm.close();
  }
}

const databaseName = (databaseUrl: string) => decodeURIComponent(new URL(databaseUrl).pathname.slice(1));

/** Creates the database named in the URL when it does not exist. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  await onMaintenanceDatabase(databaseUrl, async (db) => {
    const { rows } = await sql`select 1 from pg_database where datname = ${name}`.execute(db);
    if (rows.length === 0) await sql`create database ${sql.id(name)}`.execute(db);
  });
}

/** Drops the database named in the URL, disconnecting its sessions (tests start from nothing). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  await onMaintenanceDatabase(databaseUrl, async (db) => {
    await sql`drop database if exists ${sql.id(databaseName(databaseUrl))} with (force)`.execute(db);
  });
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
