import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type pg from 'pg';
import { entities } from './entities/index.ts';
import { migrationsList } from './migrations/index.ts';
import { pgConnectionOptions, watchPool, type ConnectionOptions } from './pool.ts';

export function ormConfig(databaseUrl: string, poolMax = 10, options: ConnectionOptions = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, snapshot: false, silent: true },
    pool: { max: poolMax },
    // Handed to the pg Pool under MikroORM: a bounded wait for a connection, and 'error' events of
    // connections PostgreSQL closed are handled (MikroORM listens too; ours also works without it).
    driverOptions: {
      ...pgConnectionOptions(options),
      onPoolCreated: (pool: pg.Pool) => void watchPool(pool, options.onError),
    },
    // Entities are plain objects described by defineEntity; no reflection or discovery at run time.
    discovery: { warnWhenNoEntities: false },
    debug: false,
  });
}
