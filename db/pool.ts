import pg from 'pg';

/**
 * A plain pg pool for the few hot-path statements (the rate-limit count, the product read) where the
 * ORM's query building and entity hydration cost more than the query itself. Everything else goes
 * through MikroORM.
 */
export type SqlPool = pg.Pool;

export function openSqlPool(databaseUrl: string, max: number): SqlPool {
  return new pg.Pool({ connectionString: databaseUrl, max });
}
