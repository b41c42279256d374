import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.ts';
import { migrationsList } from './migrations/index.ts';

export function ormConfig(databaseUrl: string, poolMax = 10) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, snapshot: false, silent: true },
    pool: { max: poolMax },
    // Entities are plain objects described by defineEntity; no reflection or discovery at run time.
    discovery: { warnWhenNoEntities: false },
    debug: false,
  });
}
