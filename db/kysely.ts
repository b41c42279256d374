import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Kysely } from 'kysely';
import type { entities } from './entities/index.ts';

/**
 * The one typed SQL builder (MikroORM's own Kysely): its tables and columns are the entities', by their
 * property names, so a row comes back in the entity's shape and a record is declared once. Bound to
 * the EntityManager's transaction when `em` is inside one. Values are converted as the entities' types
 * say (a `bigint('number')` column comes back a number, a timestamp a Date), as an entity read would.
 */
const NAMING = { columnNamingStrategy: 'property', convertValues: true } as const;
export type Database = InferKyselyDB<(typeof entities)[number], typeof NAMING>;

export function kyselyOf(em: EntityManager): Kysely<Database> {
  return em.getKysely(NAMING) as unknown as Kysely<Database>;
}

/** What the repositories use of Kysely itself: its raw fragments and its row types (the client stays here). */
export { sql } from 'kysely';
export type { ExpressionBuilder, Insertable, Selectable, Updateable } from 'kysely';
