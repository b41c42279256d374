import type { RawBuilder } from 'kysely';
import { kyselyOf, type Database, type Kysely } from '../db/kysely.ts';
import type { Orm } from '../db/orm.ts';

/** Kysely's `sql` template: the benches' statements, their values sent as parameters (arrays as arrays). */
export { sql } from '../db/kysely.ts';

/** A bench's statement: its rows, as the template's type says (unchecked: the statement names its columns). */
export type Query = <T>(statement: RawBuilder<T>) => Promise<T[]>;

/** The benches' own reads and writes (set-up, probes, books), on the ORM's pool. */
export interface BenchDb {
  query: Query;
  /** `run` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<R>(run: (query: Query) => Promise<R>): Promise<R>;
}

const on =
  (db: Kysely<Database>): Query =>
  async (statement) =>
    (await statement.execute(db)).rows;

export function benchDb(orm: Orm): BenchDb {
  return {
    query: (statement) => on(kyselyOf(orm.em.fork()))(statement),
    transaction: (run) => orm.em.fork().transactional((em) => run(on(kyselyOf(em)))),
  };
}
