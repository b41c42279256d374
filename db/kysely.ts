import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';
import { MikroKyselyPlugin, type InferKyselyDB } from '@mikro-orm/sql';
import type { Compilable, Kysely, QueryId } from 'kysely';
import type { Pool } from 'pg';
import { markDatabaseError } from './pool.ts';
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

/**
 * A hot read written once with the typed builder, compiled once, and then sent as a named prepared
 * statement (parsed and planned once per connection, each call sending only its parameters): the
 * builder's cost is paid at the first call, not on every request. Its rows come back as `kyselyOf`'s
 * do (property names, converted values). `build` receives the arguments as placeholders, each of
 * which must end up as one parameter of the statement; the statement runs outside any transaction.
 */
export function preparedRead<A extends string[], R>(
  name: string,
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (em: EntityManager, ...args: A) => Promise<R[]> {
  const compiled = new WeakMap<object, Promise<PreparedStatement<R>>>();
  return async (em, ...args) => {
    const connection = em.getConnection();
    let statement = compiled.get(connection);
    if (!statement) compiled.set(connection, (statement = prepare(em, name, build, args.length)));
    const { pool, text, order, plugin, queryId } = await statement.catch((err: unknown) => {
      compiled.delete(connection); // not connected yet: the next call tries again
      throw markDatabaseError(err);
    });
    let rows: unknown[];
    try {
      rows = (await pool.query({ name, text, values: order.map((i) => args[i]) })).rows;
    } catch (err) {
      throw markDatabaseError(err);
    }
    const result = await plugin.transformResult({ queryId, result: { rows: rows as UnknownRow[] } });
    return result.rows as R[];
  };
}

type UnknownRow = Record<string, unknown>;

interface PreparedStatement<R> {
  pool: Pool;
  text: string;
  /** For each parameter of the statement, the index of the argument it takes. */
  order: number[];
  plugin: MikroKyselyPlugin;
  queryId: QueryId;
  /** Only for the row type. */
  row?: R;
}

async function prepare<A extends string[], R>(
  em: EntityManager,
  name: string,
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
  arity: number,
): Promise<PreparedStatement<R>> {
  const fork = em.fork();
  const plugin = new MikroKyselyPlugin(fork, NAMING);
  const db = fork.getKysely().withPlugin(plugin) as unknown as Kysely<Database>;
  const placeholders = Array.from({ length: arity }, (_, i) => `\u0000argument ${i}\u0000`);
  const query = build(db, ...(placeholders as A)).compile();
  const order = query.parameters.map((value) => placeholders.indexOf(value as string));
  if (order.includes(-1)) throw new Error(`prepared statement ${name}: a parameter is not one of its arguments`);
  const pool = await (em.getConnection() as PostgreSqlConnection).getNativeClient();
  return { pool, text: query.sql, order, plugin, queryId: query.queryId };
}
