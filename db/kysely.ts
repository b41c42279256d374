import type { EntityManager, PostgreSqlConnection } from '@mikro-orm/postgresql';
import { MikroKyselyPlugin, type EntityName, type InferKyselyDB } from '@mikro-orm/sql';
import type { Compilable, Kysely } from 'kysely';
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
 * A hot read of one entity's table, written once with the typed builder, compiled once, and then sent
 * as a named prepared statement (parsed and planned once per connection, each call sending only its
 * parameters): the builder's cost is paid at the first call, not on every request. Its rows come back
 * as `kyselyOf`'s do (property names, values converted as the entity says), through a converter made
 * once from the entity's metadata (the plugin's own result mapping rebuilds its maps on every call,
 * which costs more than the statement). `build` receives the arguments as placeholders, each of which
 * must end up as one parameter of the statement; the statement runs outside any transaction.
 */
export function preparedRead<T extends object, A extends string[], R>(
  name: string,
  entity: EntityName<T>,
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (em: EntityManager, ...args: A) => Promise<R[]> {
  const prepared = new WeakMap<object, Promise<PreparedStatement>>();
  return async (em, ...args) => {
    const connection = em.getConnection();
    let statement = prepared.get(connection);
    if (!statement) prepared.set(connection, (statement = prepare(em, name, entity, build, args.length)));
    const { pool, text, order, convert } = await statement.catch((err: unknown) => {
      prepared.delete(connection); // not connected yet: the next call tries again
      throw markDatabaseError(err);
    });
    try {
      const { rows } = await pool.query<Record<string, unknown>>({ name, text, values: order.map((i) => args[i]) });
      // The rows of the typed statement `build` returns, as its result type says.
      return rows.map(convert) as R[];
    } catch (err) {
      throw markDatabaseError(err);
    }
  };
}

interface PreparedStatement {
  pool: Pool;
  text: string;
  /** For each parameter of the statement, the index of the argument it takes. */
  order: number[];
  convert: (row: Record<string, unknown>) => Record<string, unknown>;
}

async function prepare<T extends object, A extends string[], R>(
  em: EntityManager,
  name: string,
  entity: EntityName<T>,
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
  arity: number,
): Promise<PreparedStatement> {
  const fork = em.fork();
  const db = fork.getKysely().withPlugin(new MikroKyselyPlugin(fork, NAMING)) as unknown as Kysely<Database>;
  const placeholders = Array.from({ length: arity }, (_, i) => `\u0000argument ${i}\u0000`);
  const query = build(db, ...(placeholders as A)).compile();
  const order = query.parameters.map((value) => placeholders.indexOf(value as string));
  if (order.includes(-1)) throw new Error(`prepared statement ${name}: a parameter is not one of its arguments`);
  const pool = await (em.getConnection() as PostgreSqlConnection).getNativeClient();
  return { pool, text: query.sql, order, convert: rowConverter(fork, name, entity) };
}

/** Column names to property names, each value converted as MikroORM's `convertValues` does. */
function rowConverter<T extends object>(em: EntityManager, name: string, entity: EntityName<T>) {
  const platform = em.getPlatform();
  const timezone = platform.getTimezone();
  // As MikroORM reads a timestamp: a text without an offset is in the configured timezone.
  const parseDate = (value: string | number) =>
    !timezone ||
    timezone === 'local' ||
    typeof value === 'number' ||
    value.includes('+') ||
    value.lastIndexOf('-') > 10 ||
    value.endsWith('Z')
      ? platform.parseDate(value)
      : platform.parseDate(value + timezone);
  const byColumn = new Map<string, { property: string; read: (value: unknown) => unknown }>();
  for (const prop of em.getMetadata(entity).props) {
    const read = (value: unknown): unknown => {
      if (value == null) return value;
      if (prop.customType) return prop.customType.convertToJSValue(value, platform);
      if (prop.runtimeType === 'boolean') return !!value;
      if (prop.runtimeType === 'Date' && (typeof value === 'string' || typeof value === 'number')) {
        return parseDate(value);
      }
      return value;
    };
    for (const column of prop.fieldNames ?? []) byColumn.set(column, { property: prop.name, read });
  }
  return (row: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const column in row) {
      const known = byColumn.get(column);
      if (!known) throw new Error(`prepared statement ${name}: column ${column} is not the entity's`);
      out[known.property] = known.read(row[column]);
    }
    return out;
  };
}
