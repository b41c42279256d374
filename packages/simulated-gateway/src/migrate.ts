import { openSimulatorPool, plainSql, type SimulatorConnection } from './database.ts';
import { SIMULATOR_MIGRATIONS } from './migrations.ts';

/**
 * The simulator's own migrations on its own schema (gateway_sim), recorded in its own table
 * (gateway_sim.schema_migrations), apart from the application's: the engine's database never needs
 * them, only a database the simulator keeps its books in. Each pending migration runs in one
 * transaction under an advisory lock, so processes starting together (API, worker, server) apply it once.
 */
export const MIGRATIONS_TABLE = 'gateway_sim.schema_migrations';

/** Applies the pending migrations; the names applied now, in order. */
export async function migrateSimulator(target: string | SimulatorConnection): Promise<string[]> {
  if (typeof target !== 'string') return migrateOn(target);
  const pool = openSimulatorPool(target, { max: 1, applicationName: 'billing-gateway-sim-migrate' });
  try {
    return await migrateOn(pool);
  } finally {
    await pool.end();
  }
}

async function migrateOn(connection: SimulatorConnection): Promise<string[]> {
  return plainSql(connection).transaction(async (sql) => {
    await sql(`select pg_advisory_xact_lock(hashtext('${MIGRATIONS_TABLE}'))`);
    await sql('create schema if not exists gateway_sim');
    await sql(
      `create table if not exists ${MIGRATIONS_TABLE} (name text primary key, applied_at timestamptz not null default now())`,
    );
    const done = new Set((await sql<{ name: string }>(`select name from ${MIGRATIONS_TABLE}`)).map((r) => r.name));
    const applied: string[] = [];
    for (const migration of SIMULATOR_MIGRATIONS) {
      if (done.has(migration.name)) continue;
      await sql(migration.sql);
      await sql(`insert into ${MIGRATIONS_TABLE} (name) values (?)`, [migration.name]);
      applied.push(migration.name);
    }
    return applied;
  });
}
