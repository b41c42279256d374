import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './config.ts';

export type Orm = MikroORM;

export async function openOrm(databaseUrl: string, poolMax?: number): Promise<Orm> {
  return MikroORM.init(ormConfig(databaseUrl, poolMax));
}

/** Creates the database named in the URL when it does not exist (connecting to `postgres` to do so). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const orm = await MikroORM.init({
    clientUrl: admin.toString(),
    entities: [],
    discovery: { warnWhenNoEntities: false },
  });
  try {
    const rows = await orm.em.getConnection().execute('select 1 from pg_database where datname = ?', [name]);
    if (rows.length === 0) await orm.em.getConnection().execute(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await orm.close();
  }
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
