import type { EntityManager } from '@mikro-orm/postgresql';
import { kyselyOf, sql } from '../kysely.ts';

/**
 * The database's deployment id (migration 0032, decision 0083): what tells this database's workers
 * from another's on one Temporal namespace and task queue. Its only reader; nothing writes it after
 * the migration.
 */
export async function readDeploymentId(em: EntityManager): Promise<string> {
  const { rows } = await sql<{ id: string }>`select id from deployment`.execute(kyselyOf(em));
  const id = rows[0]?.id;
  if (!id) throw new Error('The database has no deployment id (table deployment is empty): run the migrations');
  return id;
}
